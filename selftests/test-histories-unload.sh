#!/bin/sh
# Unloading while an object is watched ends its history cleanly: no oops,
# and every debug register comes back (a new load gets all it had).
# Objects are allocated on CPU 0 and held, one at a time, until one of
# them is the watched object; it stays watched (history_timeout_ms=4000)
# while dprof is unloaded.
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof_workload
load_mod dprof target=dprof_workload history_timeout_ms=4000
slots=$(awk '/debug registers:/ {print $3}' $DPROF_DIR/histories)
[ -n "$slots" ] && [ "$slots" -gt 0 ] || skip "no debug registers free"
loop_until 'wl "alloc 1 0"; grep -q "^histories: watching" $DPROF_DIR/histories' ||
	fail "no object was being watched: $(cat $DPROF_DIR/histories)"
grep "^histories:" $DPROF_DIR/histories
unload_mod dprof
echo "ok: unloaded while watching"
wl reset
load_mod dprof target=dprof_workload
expect_eq "debug registers after reload" \
	"$(awk '/debug registers:/ {print $3}' $DPROF_DIR/histories)" "$slots"
unload_mod dprof
unload_mod dprof_workload
exit 0
