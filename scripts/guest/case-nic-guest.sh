#!/bin/sh
# make case-nic, in the Debian guest booted with 4 vCPUs and vm.sh -n
# igb,virtio-net-pci (scripts/case-nic.sh): the DProf thesis' memcached
# case (§6.1) on a multi-queue NIC, set up as selftests/debian/nic.sh
# says (one memcached per CPU, each client flow steered to its server's
# receive queue, XPS cleared).  Writes to /host/case-nic/.
#
#   case-nic-guest.sh profile SECONDS
#       skbuff histories before and after XPS: recordings, flow graphs,
#       the hand-off at the transmit completion, the NIC's own count
#   case-nic-guest.sh rate SECONDS ROUNDS
#       replies a second, XPS off and on in turn, ROUNDS of each, then
#       target=all at its defaults, XPS off (run it under -icount: guest
#       time then counts instructions, and a tick falls at an exact one)
#   case-nic-guest.sh load before|after SECONDS
#       the load alone between two syncs (the referee's window), a
#       request waiting 3 s for its reply: the referee slows the guest
cd /selftests || exit 1
. ./functions.sh
. ./debian/nic.sh
trap 'pkill -x memcached; cleanup_modules' EXIT
out=/host/case-nic
mkdir -p "$out"
mode=$1
shift
flows=16

nic_setup || exit 1
nic_steer $flows || exit 1

# A recording of the load: NAME SECONDS PARAMS...
record() {
	name=$1 secs=$2
	shift 2
	load_mod dprof "$@"
	dprof-view record --no-progress -o "$out/$name.dprof" -- \
		sh -c ". ./debian/nic.sh; nic_find; nic_load $secs" >"$out/$name.log" 2>&1 ||
		{ cat "$out/$name.log"; exit 1; }
	unload_mod dprof
	grep -E '^nic:' "$out/$name.log"
}

# One side of the fix: the NIC's count, the recording with histories
# (len, head and data, which every transmit reads), its views.
side() {
	name=$1 secs=$2
	nic_show | grep xps_cpus >"$out/$name-setup.txt"
	echo "$name: the NIC: $(nic_tx_truth) flows' replies on another CPU's queue (moved, flows)" |
		tee -a "$out/$name-setup.txt"
	record "$name" "$secs" target=skbuff sampler=off history_max_arms=400 \
		history_offsets="$(nic_skb_offsets)"
	set -- $(nic_handoffs "$out/$name.dprof")
	echo "$1 $2" >"$out/$name-handoff"
	echo "$name: $1 of $2 transmitted skbuffs freed on another CPU at the completion"
	dprof-view flow "$out/$name.dprof" skbuff_head_cache >"$out/$name-flow.txt" 2>&1
	dprof-view flow --dot -o "$out/$name-flow.dot" "$out/$name.dprof" skbuff_head_cache 2>/dev/null
	dprof-view objects "$out/$name.dprof" >"$out/$name-objects.txt" 2>&1
	dprof-view classify -L -t skbuff_head_cache "$out/$name.dprof" \
		>"$out/$name-lines.txt" 2>&1
}

case $mode in
profile)
	secs=${1:-10}
	nic_show | tee "$out/setup.txt"
	side before "$secs"
	nic_xps on
	side after "$secs"
	;;
rate)
	secs=${1:-10} rounds=${2:-3} r=1
	nic_show
	while [ "$r" -le "$rounds" ]; do
		for x in off on; do
			nic_xps $x
			echo "round $r xps $x $(nic_load "$secs" | awk '/in all/ { print $2 }')"
		done
		r=$((r + 1))
	done | tee "$out/rate.txt"
	# Which types: the whole kernel at dprof's defaults (the operand
	# sampler), where a tick falls at an exact instruction.
	nic_xps off
	record all "$secs" target=all
	dprof-view report "$out/all.dprof" >"$out/all-report.txt" 2>&1
	;;
load)
	[ "$1" = after ] && nic_xps on
	nic_show | grep xps_cpus
	sync
	NIC_WAIT_MS=3000 nic_load "${2:-5}" | tee "$out/load-$1.txt"
	sync
	;;
*)
	echo "case-nic-guest: profile, rate or load, not '$mode'" >&2
	exit 2
	;;
esac
