#!/bin/sh
# Older objects the scan cannot establish, established by their use
# (design.rst, "Older objects established by use"; issue "real
# applications": memcached's UDP socket was such an object).
#
# Ground truth (selftests/modules/dprof_older.c): before dprof loads, 8
# objects of the cache dprof_older, 64 bytes each: one slab of 64 slots
# holds them all with free slots to spare, so the load-time scan, which
# can tell live only the objects of full slabs, establishes none of them.
# Two are busy (a kthread does atomic increments of their counters, its
# pointer in a register), six are never touched again.  The in-use tick
# reads the CPUs' registers 100 times a second: the two busy objects are
# seen in periods a second apart and must become live older objects,
# then get sample windows and samples; the six idle ones are never in a
# register and must stay unknown.  When the module frees all eight, the
# frees of the two end them: the live set is empty again.
. ./functions.sh
trap cleanup_modules EXIT
OLDER_DIR=/sys/kernel/debug/dprof_older

load_mod dprof_older objects=8 busy=2
load_mod dprof target=dprof_older track_one_in=1
scan_off_by_quarantine &&
	skip "no older object can be told live here, and dprof says: $(grep '^scan:' $DPROF_DIR/status)"
loop_until 'grep -q "^scan: done" $DPROF_DIR/status' ||
	fail "the scan did not finish: $(grep -A1 '^scan' $DPROF_DIR/status)"
grep -A1 "^scan:" "$DPROF_DIR/status"
by_scan=$(sed -n 's/^  older objects: \([0-9]*\) established.*/\1/p' "$DPROF_DIR/status")
expect_eq "objects the scan established (the ground truth: a slab with free slots)" "$by_scan" 0

by_use() {
	sed -n 's/^older objects by use: \([0-9]*\) established.*/\1/p' "$DPROF_DIR/status"
}
i=0
while [ $i -lt 30 ] && [ "$(by_use)" -lt 2 ]; do
	sleep 1
	i=$((i + 1))
done
# Three more periods: an idle object must not follow.
sleep 3
grep "^older objects by use" "$DPROF_DIR/status"
cat "$OLDER_DIR/stats"
expect_eq "older objects established by use (the two busy ones)" "$(by_use)" 2
live=$(awk '/^live objects:/ { print $3 }' "$DPROF_DIR/status")
expect_eq "live objects" "$live" 2

# Windows on them see the increments.
loop_until 'awk '"'"'$1 == "dprof_older" && $2 > 0 { found = 1 } END { exit !found }'"'"' $DPROF_DIR/profile' ||
	sleep 10
row=$(awk '$1 == "dprof_older"' "$DPROF_DIR/profile")
echo "profile: $row"
samples=$(echo "$row" | awk '{ print $2 }')
[ "${samples:-0}" -gt 0 ] || fail "no sample on the busy objects: $row"
older=$(echo "$row" | awk '{ print $6 }')
expect_eq "the type's older objects in the profile" "$older" 2

echo free >"$OLDER_DIR/ctl" || fail "dprof_older could not free its objects"
loop_until '[ "$(awk '"'"'/^live objects:/ { print $3 }'"'"' $DPROF_DIR/status)" -eq 0 ]' ||
	fail "objects still live after every one was freed: $(grep '^live objects:' $DPROF_DIR/status)"
echo "ok: the frees ended them"
unload_mod dprof
unload_mod dprof_older
exit 0
