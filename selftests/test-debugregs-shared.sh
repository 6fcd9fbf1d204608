#!/bin/sh
# dprof leaves the machine a debug register: a debugger's watchpoint
# (hwwatch: a perf breakpoint on a variable of its own process, what gdb's
# "watch" and "perf stat -e mem:ADDR:w" make) gets one while dprof watches
# objects at its defaults, and traps on every write (1,000 of 1,000).
# x86 has four; dprof keeps the ones it holds for its whole life (parked,
# watch.c), so holding all four would refuse every other user with
# ENOSPC.  watch_slots=4 takes them all: then the watchpoint is refused,
# and status says what dprof holds either way.
. ./functions.sh
trap '[ -d "$WL_DIR" ] && echo stop >"$WL_DIR/ctl"; cleanup_modules' EXIT

load_mod dprof_workload
load_mod dprof target=dprof_workload sampler=off
grep "debug registers" $DPROF_DIR/histories
# Histories armed and watched meanwhile: objects allocated all along.
wl stress 0
out=$(hwwatch -n 1000)
rc=$?
echo "with dprof at its defaults: $out"
[ "$rc" -eq 0 ] || fail "a debugger's watchpoint did not get a register and trap every write (exit $rc: $out)"
grep -q "debug registers: 3 of 4 held" $DPROF_DIR/histories ||
	fail "dprof at its defaults does not say it holds 3 of the 4 debug registers"
loop_until '[ "$(plan_count histories)" -ge 1 ]' ||
	fail "no complete history while the watchpoint was used"
wl stop
unload_mod dprof

load_mod dprof target=dprof_workload sampler=off watch_slots=4
grep "debug registers" $DPROF_DIR/histories
grep -q "debug registers: 4 of 4 held" $DPROF_DIR/histories ||
	fail "watch_slots=4: dprof does not say it holds all four"
out=$(hwwatch -n 1000)
rc=$?
echo "with watch_slots=4: $out"
expect_eq "hwwatch's exit with every register dprof's (3: ENOSPC)" "$rc" 3
unload_mod dprof
unload_mod dprof_workload
