#!/bin/sh
# dprof unloads cleanly while target objects are being allocated and freed
# on both CPUs, repeatedly; the init script fails the run on any oops or
# warning.
. ./functions.sh
trap '[ -d $WL_DIR ] && echo stop >$WL_DIR/ctl; cleanup_modules' EXIT

load_mod dprof_workload
wl "stress 1"
for i in 1 2 3 4 5; do
	load_mod dprof target=dprof_workload,skbuff
	wl "churn 2000 0"
	cat "$DPROF_DIR/status" >/dev/null
	unload_mod dprof
done
wl stop
allocs=$(wl_stat allocs 1)
[ "$allocs" -gt 0 ] || fail "the stress thread did not run"
echo "ok: 5 unloads under load ($allocs stress allocations)"
unload_mod dprof_workload
exit 0
