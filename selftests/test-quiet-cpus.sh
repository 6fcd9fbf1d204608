#!/bin/sh
# dprof leaves isolated CPUs alone.  A host that isolates CPUs
# (isolcpus=, nohz_full=) runs latency-bound work there and expects no
# interrupt it did not ask for: no timer tick of dprof's, no IPI to point
# the debug registers.  Booted with "nohz_full=1 isolcpus=1" (make
# check's production-host boot; skips otherwise), CPU 1 idle: over 10 s
# with dprof loaded at its defaults (target=all, while CPU 0 allocates),
# CPU 1's local timer (LOC) and function-call (CAL) interrupts must grow
# no more than over 10 s without dprof, give or take 2 (the idle CPU's
# own noise, measured twice without dprof).
. ./functions.sh
trap '[ -d "$WL_DIR" ] && echo stop >"$WL_DIR/ctl"; cleanup_modules' EXIT
grep -qw "nohz_full=1" /proc/cmdline && grep -qw "isolcpus=1" /proc/cmdline ||
	skip "needs a guest booted with nohz_full=1 isolcpus=1 (make check boots one)"
# irq NAME: CPU 1's count of /proc/interrupts' line NAME.
irq() { awk -v n="$1:" '$1 == n { print $3 }' /proc/interrupts; }
# growth: LOC and CAL of CPU 1 over 10 s, while CPU 0 allocates.
growth() {
	l0=$(irq LOC) c0=$(irq CAL)
	sleep 10
	echo "$(($(irq LOC) - l0)) $(($(irq CAL) - c0))"
}
load_mod dprof_workload
wl stress 0
base1=$(growth)
base2=$(growth)
echo "without dprof, CPU 1 LOC CAL over 10 s: $base1 and $base2"
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
