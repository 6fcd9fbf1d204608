#!/bin/sh
# Unloading while an object is watched ends its history cleanly: no oops,
# the workload's objects stay intact, and every debug register comes back
# (a new load gets all it had).
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof_sharing
load_mod dprof target=dprof_sharing
slots=$(awk '/debug registers:/ {print $3}' $DPROF_DIR/histories)
[ -n "$slots" ] && [ "$slots" -gt 0 ] || skip "no debug registers free"
# Long-lived objects (many watched accesses each) in the background.
echo "run 2000 400 0 1" >/sys/kernel/debug/dprof_sharing/ctl &
wl_pid=$!
loop_until "grep -q '^histories: watching' $DPROF_DIR/histories" ||
	fail "no object was being watched: $(cat $DPROF_DIR/histories)"
unload_mod dprof
echo "ok: unloaded while watching"
wait $wl_pid || fail "the sharing workload failed"
expect_eq "bad hand-offs" "$(awk '$1 == "bad_handoffs" {print $2}' /sys/kernel/debug/dprof_sharing/stats)" 0
load_mod dprof target=dprof_sharing
expect_eq "debug registers after reload" \
	"$(awk '/debug registers:/ {print $3}' $DPROF_DIR/histories)" "$slots"
unload_mod dprof
unload_mod dprof_sharing
exit 0
