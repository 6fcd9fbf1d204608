#!/bin/sh
# In the guest, for scripts/check-advise-loop.sh (issue "From diagnosis to
# fix", item 3): dprof_sharing's lockstep rounds (A's and B's iterations
# alternate; the table in selftests/modules/dprof_sharing.c) on one build
# of the module or the other, the build as written and dprof_sharing_adv,
# whose struct is advise's proposal.
#
#   record KO CACHE OFFSETS NAME
#       load KO, then dprof.ko on CACHE with every pair of OFFSETS watched
#       (history_mode=pairs), record the rounds until the plan has gone
#       twice round: /host/NAME.dprof, /host/NAME-stats
#   referee KO...
#       for each KO in turn: load it, then ROUNDS rounds of ITERS
#       iterations between two sync(1) calls (the referee's trigger),
#       /host/referee-stats-K (K = 1, 2, ...), unload.  dprof.ko is not
#       loaded: the referee owes it nothing.
# A KO that is not a path is taken from the modules' folder.
cd /selftests && . ./functions.sh
trap cleanup_modules EXIT
ctl=/sys/kernel/debug/dprof_sharing/ctl
ko_path() {
	case $1 in
	*/*) echo "$1" ;;
	*) echo "$MODDIR/$1.ko" ;;
	esac
}
load_ko() {
	local msg
	msg=$(modload "$(ko_path "$1")") ||
		fail "loading $1 failed: $msg; kernel log: $(dmesg | tail -n 4)"
}
mod_name() { basename "$1" .ko; }

mode=$1
shift
case $mode in
record)
	ko=$1 cache=$2 offsets=$3 name=$4
	load_ko "$ko"
	load_mod dprof target="$cache" sampler=off history_mode=pairs \
		history_offsets="$offsets"
	record_rounds "/host/$name.dprof" 2 100 \
		'echo "run 50 20 0 1 0 1" >/sys/kernel/debug/dprof_sharing/ctl' ||
		fail "record failed"
	grep "rounds complete" "$DPROF_DIR/histories"
	cat /sys/kernel/debug/dprof_sharing/stats >"/host/$name-stats"
	unload_mod dprof
	unload_mod "$(mod_name "$ko")"
	;;
referee)
	ROUNDS=${ROUNDS:-20}
	ITERS=${ITERS:-200}
	k=0
	for ko in "$@"; do
		k=$((k + 1))
		load_ko "$ko"
		sync
		echo "run $ROUNDS $ITERS 0 1 0 1" >$ctl || fail "run failed"
		sync
		{ cat /sys/kernel/debug/dprof_sharing/stats
		  echo "rounds $ROUNDS iters $ITERS"; } >"/host/referee-stats-$k"
		unload_mod "$(mod_name "$ko")"
	done
	;;
*)
	fail "guest-advise-loop.sh: mode '$mode': record or referee"
	;;
esac
exit 0
