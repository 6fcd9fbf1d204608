#!/bin/sh
# Helpers for dprof's guest selftests (sourced; busybox sh).  Modelled on
# the kernel's selftests/livepatch/functions.sh.
MODDIR=${MODDIR:-/lib/modules/dprof}
DPROF_DIR=/sys/kernel/debug/dprof
WL_DIR=/sys/kernel/debug/dprof_workload
KSFT_SKIP=4
TMP=${TMPDIR:-/tmp}

# A canary in the kernel log so a test reads only its own messages.
log_canary() {
	CANARY="dprof-selftest-$$-$(date +%s)"
	echo "$CANARY" >/dev/kmsg
}

dmesg_since_canary() {
	dmesg | sed -n "/$CANARY/,\$p"
}

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit $KSFT_SKIP
}

# load_mod NAME [PARAMS...]: load or fail the test
load_mod() {
	local name=$1 msg
	shift
	msg=$(modload "$MODDIR/$name.ko" "$@") ||
		fail "loading $name $* failed: $msg; kernel log: $(dmesg | grep "$name" | tail -n 4)"
}

unload_mod() {
	rmmod "$1" || fail "unloading $1 failed"
	[ ! -d "/sys/module/$1" ] || fail "$1 still present after rmmod"
}

# expect_load_error ERRNO NAME [PARAMS...]: loading must fail with ERRNO
expect_load_error() {
	local want=$1 name=$2 got
	shift 2
	modload "$MODDIR/$name.ko" "$@" >/dev/null
	got=$?
	[ "$got" -eq "$want" ] ||
		fail "loading $name $* gave errno $got, expected $want"
	[ ! -d "/sys/module/$name" ] || fail "$name loaded despite the error"
}

# ksym NAME: the address of a kernel symbol (hex, no 0x), from kallsyms
ksym() {
	awk -v n="$1" '$3 == n && NF == 3 { print $1; exit }' /proc/kallsyms
}

# hexadd HEX N: HEX + N in hex; busybox sh does 64-bit $(( )), awk not.
hexadd() {
	printf '%x' $(( 0x$1 + $2 ))
}

# A row of dprof-view report's table: rank type struct ws older samples
# share [bounce].  report_samples ROW: its samples.  report_has_interval
# ROW: true when its share carries a 95% interval ("12.0% ± 2.7" or
# "12.0% ±12.7"; not "±?" of a single unit, not "-"); the bounce column
# after it can hold a ± of its own, so a grep of the row would not do.
report_samples() {
	echo "$1" | awk '{ print $6 }'
}

report_has_interval() {
	echo "$1" | awk '{ exit !($8 ~ /^±[0-9]/ || ($8 == "±" && $9 ~ /^[0-9]/)) }'
}

# loop_until CMD...: retry for up to 10 s
loop_until() {
	local i=0
	while [ $i -lt 100 ]; do
		eval "$*" && return 0
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

wl() {
	echo "$*" >"$WL_DIR/ctl" || fail "workload command '$*' failed"
}

# wl_stat KEY [CPU]: a value from the workload's stats
wl_stat() {
	if [ $# -eq 2 ]; then
		awk -v cpu="$2" -v key="$1" '$1 == "cpu" && $2 == cpu {
			for (i = 3; i < NF; i += 2) if ($i == key) print $(i + 1) }' \
			"$WL_DIR/stats"
	else
		awk -v key="$1" '$1 == key { print $2 }' "$WL_DIR/stats"
	fi
}

# objects_row FILE TARGET CPU: "allocs frees remote_frees" from dprof-view
objects_row() {
	dprof-view objects "$1" | awk -v t="$2" -v cpu="$3" '
		/^[^ ]/ { cur = $1 }
		cur == t && $1 == cpu { print $2, $3, $4; exit }'
}

# record_rounds FILE ROUNDS TRIES COMMAND: record into FILE while the
# shell COMMAND (one string, redirections allowed) runs again and again,
# until the history plan has gone ROUNDS times round or TRIES runs are
# done; RECORD_TASKSET=CPUS pins the recorder.  The status is record's.
record_rounds() {
	local out=$1 rounds=$2 tries=$3 cmd=$4
	cat >"$TMP/record-rounds.sh" <<EOS
. /selftests/functions.sh
for i in \$(seq $tries); do
	{ $cmd; } >/dev/null || exit 1
	[ "\$(plan_count rounds)" -ge $rounds ] && exit 0
done
exit 0
EOS
	${RECORD_TASKSET:+taskset $RECORD_TASKSET} dprof-view record -o "$out" -- \
		sh "$TMP/record-rounds.sh"
}

# plan_count rounds|histories: from the cover plan in the histories file
# (the last target's line), the complete rounds or complete histories so far.
plan_count() {
	local v
	v=$(awk -v w="$1" '/rounds complete/ {
		for (k = 2; k < NF; k++)
			if ((w == "rounds" && $(k - 1) == "rounds" && $k == "complete") ||
			    (w == "histories" && $(k - 1) == "complete" && $k == "histories")) {
				v = $(k + 1); sub(",", "", v); print v
			}
	}' "$DPROF_DIR/histories" | tail -n 1)
	echo "${v:-0}"
}

# True when the guest runs under QEMU's -icount (vm.sh, DPROF_ICOUNT=1):
# guest time then counts the guest's instructions only, not the time the
# emulator spends delivering a trap.
under_icount() {
	grep -qw dprof_icount /proc/cmdline
}

# True on a KASAN kernel (make check-debug).  Every instruction there
# costs several.  A debug-register trap took about 100 us of guest wall
# time under TCG instead of 10-40 (inferred, not timed: in
# test-sampler-windows the group with 8 trapped accesses per 1 ms
# iteration read 1.5 times fewer samples per ms than the group with 2),
# and one window arm, IPIs and waits included, 20-65 ms of wall time
# (dprof's own arm cost in histories; wall time, not -icount).  Sampler tests
# record longer there and leave histories off, so that the windows get
# every turn; what they check does not change.
kasan_kernel() {
	grep -q " kasan_report$" /proc/kallsyms
}

# skip_if_windows_too_slow TYPE: on a KASAN kernel, when TYPE got no
# sample, skip with what the windows met.  There one arm (a breakpoint
# per CPU and offset, perf_event_create_kernel_counter() and its IPIs)
# took about 45 ms of guest wall time, while an skbuff lives
# microseconds: of 15 windows armed in 8 s of UDP, 14 found their skbuff
# freed first.  The arm cost printed is dprof's, from get_cycles() in a
# multi-threaded TCG guest: wall time, an illustration, not a budget.
skip_if_windows_too_slow() {
	kasan_kernel || return 0
	awk -v t="$1" '$1 == t && $2 > 0 { found = 1 } END { exit !found }' \
		$DPROF_DIR/profile && return 0
	skip "no $1 sample on this KASAN kernel: the sample windows cannot catch objects that live shorter than an arm here ($(grep -o '^sample windows: [^;]*;[^;]*;[^;]*' $DPROF_DIR/histories); arms in cycles of wall time: $(grep -o 'arm [a-z ]* [0-9]* avg, [0-9]* max ([0-9]*)' $DPROF_DIR/histories | tr '\n' ' '))"
}

# True when dprof (loaded) left its scan of older objects off because of
# KASAN's quarantine: quarantined objects still count as in use in their
# slabs, so no full slab can be taken for a slab of live objects (the
# scan did take them, and windows then watched freed objects).
scan_off_by_quarantine() {
	grep -q "^scan: off: KASAN's quarantine" "$DPROF_DIR/status"
}

expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	echo "ok: $1 = $3"
}

# The PIDs of dprof-view record processes (the guest's busybox has no
# pgrep or pkill).
record_pids() {
	for d in /proc/[0-9]*; do
		c=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) || continue
		case $c in
		*"dprof-view record"*) echo "${d#/proc/}" ;;
		esac
	done
}

cleanup_modules() {
	# A test that failed while a reader of dprof's files ran in the
	# background (dprof-view record) left the module held: its rmmod
	# failed with EAGAIN and every later test's load with EEXIST
	# (test-sampler-windows, then the rest of the suite).  End the
	# readers first; one still draining 10 s after SIGTERM is killed.
	if [ -d /sys/module/dprof ] && [ -n "$(record_pids)" ]; then
		# shellcheck disable=SC2046
		kill $(record_pids) 2>/dev/null
		loop_until '[ -z "$(record_pids)" ]' || {
			# shellcheck disable=SC2046
			kill -KILL $(record_pids) 2>/dev/null
			loop_until '[ -z "$(record_pids)" ]'
		}
	fi
	# A file closed by a reader just killed is released a moment later
	# (the kernel's delayed fput): until then rmmod says EAGAIN.
	if [ -d /sys/module/dprof ]; then
		loop_until 'rmmod dprof 2>/dev/null || [ ! -d /sys/module/dprof ]' ||
			rmmod dprof
	fi
	[ -d /sys/module/dprof_workload ] && rmmod dprof_workload
	[ -d /sys/module/dprof_sharing ] && rmmod dprof_sharing
	[ -d /sys/module/dprof_sharing_adv ] && rmmod dprof_sharing_adv
	[ -d /sys/module/dprof_caches ] && rmmod dprof_caches
	[ -d /sys/module/dprof_rank ] && rmmod dprof_rank
	[ -d /sys/module/dprof_older ] && rmmod dprof_older
	[ -d /sys/module/dprof_sites ] && rmmod dprof_sites
	[ -d /sys/module/dprof_strings ] && rmmod dprof_strings
	return 0
}

# ---- real kernel objects (test-kernel-objects.sh, test-agreement.sh) ----

# kobj_offset STRUCT FIELD: the field's offset from the guest's BTF.
kobj_offset() {
	dprof-view layout --btf /sys/kernel/btf/vmlinux "$1" |
		awk -v f="$2" '$3 == f { print $1; exit }'
}

# kobj_record TARGET HISTORY_LEN OFFSETS MIN_HISTORIES KSHARE_ARGS...
# Records kshare's turns into $TMP/TARGET.dprof (or $KOBJ_OUT).
# history_cpus=0: a history's object is the next allocation of its type
# on CPU 0, where kshare opens its file and sockets; the shell and
# dprof-view run on CPU 1, and their own files would otherwise be
# watched as often as kshare's (6.12 labelled f_count neither so).
# history_wait_ms=50: a gate no allocation claims is given up soon.  The
# turns make every history of a type alike, so a few are enough.
kobj_record() {
	target=$1 len=$2 offs=$3 min=$4
	shift 4
	out=${KOBJ_OUT:-$TMP/$target.dprof}
	load_mod dprof target="$target" sampler=off history_mode=pairs \
		history_len="$len" history_offsets="$offs" history_wait_ms=50 \
		history_cpus=0
	cat >"$TMP/kobj-run.sh" <<EOS
. /selftests/functions.sh
for i in \$(seq 60); do
	kshare $* >/dev/null || exit 1
	[ "\$(plan_count histories)" -ge $min ] && exit 0
done
EOS
	# record on CPU 1: its own files are not allocated where kshare's are
	taskset 2 dprof-view record -o "$out" -- sh "$TMP/kobj-run.sh" ||
		fail "recording $target failed"
	grep -E "rounds complete" $DPROF_DIR/histories
	unload_mod dprof
}

# kobj_label RECORDING TARGET OFFSET: classify's "LABEL WRITER_OFFSETS".
kobj_label() {
	dprof-view classify --script -t "$2" "$1" |
		awk -v o="$3" '$1 == "field" && $3 == o { print $4, $10 }'
}

# kobj_expect_field RECORDING TARGET OFFSET CLASS INVALIDATED_BY NAME
kobj_expect_field() {
	expect_eq "$2 $6 (offset $3): class, invalidated by" \
		"$(kobj_label "$1" "$2" "$3")" "$4 $5"
}

# The servers' guest scripts under the referee (selftests/referee/
# guest-*-dprof.sh).  referee_window WINDOW sets at_load, at_start and
# at_end, the commands run after dprof.ko's load (with eval), at the
# load's start and at its end (inside the recorded command; at_end is
# its last, an exec), and client, the CPU of the load generator: the
# other one, or the only one (DPROF_SMP=1).  Each sync(1) turns the
# referee's window on or off: "load" measures the load alone, and dprof
# from its load on; "record" the load alone for both: dprof.ko is loaded
# paused (enable=N) and counts from just after the first sync to just
# before the second, so that the sync's own writeback, the shells and
# dprof-view record's first and last reads (kallsyms and BTF, status
# and profile) fall outside both counts, not in one alone (ext4's
# buffer_head and jbd2 types, 6 samples where the referee counted none;
# the recorder's own samples, which dprof.ko leaves out, the referee
# cannot tell apart: test-reader-samples.sh).
referee_window() {
	case $1 in
	load) at_load=true at_start=sync at_end="exec sync" load_enable= ;;
	record)
		at_load=true
		at_start="sync && echo 1 >/sys/module/dprof/parameters/enable"
		at_end="echo 0 >/sys/module/dprof/parameters/enable && exec sync"
		load_enable=enable=0 ;;
	*) fail "window $1: load or record" ;;
	esac
	client=1
	[ "$(nproc)" -ge 2 ] || client=0
}

# referee_load_dprof PARAMS...: dprof.ko target=all PARAMS (after
# referee_window, paused for its "record").  What the
# kernel allocates meanwhile (dprof's perf events above all, which the
# perf core touches on every trap and tick) is dprof's own: the referee
# leaves its accesses out (progs/referee_own.c).
referee_load_dprof() {
	referee_own begin
	# shellcheck disable=SC2086
	load_mod dprof target=all "$@" ${load_enable:-}
	referee_own end
}
