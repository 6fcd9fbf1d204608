#!/bin/sh
# dprof_resolve() maps every interior address of a live target object to
# (object, offset) and nothing else, called from hard-IRQ context (IPI).
# Per check the workload probes 32 held objects at 7 offsets plus 1
# metadata address each, and 7 addresses that must not resolve (freed
# object and its interior, kmalloc object, stack, module data, NULL, top
# of the address space): 32 * 8 + 7 = 263 expectations.
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof_workload
echo "resolve 0" >"$WL_DIR/ctl" 2>/dev/null && fail "resolve without dprof should fail"
load_mod dprof target=dprof_workload
wl "alloc 40 0"
for cpu in 0 1; do
	wl "resolve $cpu"
	expect_eq "resolve failures (cpu $cpu)" "$(wl_stat resolve_failed)" 0
	expect_eq "resolve checks (cpu $cpu)" "$(wl_stat resolve_ok)" 263
done
wl "free 40 1"
wl "resolve 1"
expect_eq "checks with no live objects" "$(wl_stat resolve_ok)" 7
expect_eq "failures with no live objects" "$(wl_stat resolve_failed)" 0
unload_mod dprof
unload_mod dprof_workload
exit 0
