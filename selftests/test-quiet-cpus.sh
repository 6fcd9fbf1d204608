#!/bin/sh
# dprof leaves quiet CPUs alone.
#
# 1. Isolated CPUs.  A host that isolates CPUs (isolcpus=, nohz_full=)
#    runs latency-bound work there and expects no interrupt it did not
#    ask for: no timer tick of dprof's, no IPI to point the debug
#    registers.  Booted with "nohz_full=1 isolcpus=1" (make check's
#    production-host boot), CPU 1 idle: over 10 s with dprof loaded at its
#    defaults (target=all, while CPU 0 allocates), CPU 1's local timer
#    (LOC) and function-call (CAL) interrupts must grow no more than over
#    10 s without dprof, give or take 2 (the idle CPU's own noise,
#    measured twice without dprof).
# 2. Idle CPUs, on any other boot.  The in-use tick (inuse.c) stops when
#    it finds its CPU idle and starts again, after a random part of its
#    period, when the CPU next runs a task: it wakes a CPU at most once
#    after the CPU goes idle.  So CPU 1, idle but for the odd kernel task,
#    may see at most one more timer interrupt with the tick than without
#    it (dprof loaded alike, test_inuse=N of the tests' build leaving the
#    tick out) per stop of the tick, give or take 10 and 20 %; a cpu-clock
#    perf event added 100 a second whatever ran (1,920 for 83 in 10 s
#    before the tick was dprof's own timer).  The collector,
#    which sample windows wake 100 times a second, is kept on CPU 0 so
#    that CPU 1 runs no task of dprof's.  The debug registers' IPIs still
#    reach it (CAL): an idle CPU's interrupt handlers touch objects too (a
#    transmit completion freeing a packet), so it is not skipped.
. ./functions.sh
trap '[ -d "$WL_DIR" ] && echo stop >"$WL_DIR/ctl"; cleanup_modules' EXIT
# irq NAME: CPU 1's count of /proc/interrupts' line NAME.
irq() { awk -v n="$1:" '$1 == n { print $3 }' /proc/interrupts; }
# growth: LOC and CAL of CPU 1 over 10 s, while CPU 0 allocates.
growth() {
	l0=$(irq LOC) c0=$(irq CAL)
	sleep 10
	echo "$(($(irq LOC) - l0)) $(($(irq CAL) - c0))"
}
if ! grep -qw "nohz_full=1" /proc/cmdline || ! grep -qw "isolcpus=1" /proc/cmdline; then
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	taskset -p 1 $$ >/dev/null || fail "cannot keep the test on CPU 0"
	load_mod dprof_workload
	wl stress 0
	# dprof loaded with sample windows, the collector on CPU 0.
	load_windows() {
		load_mod dprof target=dprof_workload history=0 "$@"
		for p in /proc/[0-9]*; do
			[ "$(cat "$p/comm" 2>/dev/null)" = dprof-history ] &&
				taskset -p 1 "${p#/proc/}" >/dev/null
		done
		sleep 2
	}
	load_windows test_inuse=N
	base=$(growth)
	unload_mod dprof
	load_windows
	with=$(growth)
	grep "objects in use" $DPROF_DIR/status
	stops=$(awk '$1 == "objects" && $2 == "in" && $3 == "use:" { print $10 }' $DPROF_DIR/status)
	unload_mod dprof
	wl stop
	echo "CPU 1 (idle) LOC CAL over 10 s: $base without the in-use tick, $with with it; $stops stops"
	set -- $base $with
	[ "${stops:-0}" -gt 0 ] || fail "status counts no stop of the in-use tick on an idle CPU"
	[ "$3" -le $(($1 + $1 / 5 + stops + 10)) ] ||
		fail "CPU 1's timer interrupts grew by $3 with the in-use tick, $1 without, more than one a stop ($stops)"
	echo "ok: the idle CPU was not woken by the in-use tick"
	unload_mod dprof_workload
	exit 0
fi
load_mod dprof_workload
wl stress 0
base1=$(growth)
base2=$(growth)
echo "without dprof, CPU 1 LOC CAL over 10 s: $base1 and $base2"
# target=all at its defaults: the operand sampler where a guest has no
# IBS or PEBS, its tick on busy CPUs only.
load_mod dprof target=all
sleep 2
with=$(growth)
echo "with dprof (target=all), CPU 1 LOC CAL over 10 s: $with"
grep -E "CPUs|in-use|debug registers" $DPROF_DIR/status $DPROF_DIR/histories
unload_mod dprof
wl stop
set -- $base1 $base2 $with
max_loc=$(( $1 > $3 ? $1 : $3 )) max_cal=$(( $2 > $4 ? $2 : $4 ))
[ "$5" -le $((max_loc + 2)) ] ||
	fail "CPU 1's timer interrupts grew by $5 with dprof, at most $max_loc without"
[ "$6" -le $((max_cal + 2)) ] ||
	fail "CPU 1's function-call interrupts grew by $6 with dprof, at most $max_cal without"
echo "ok: the isolated CPU got no interrupt of dprof's"
unload_mod dprof_workload
