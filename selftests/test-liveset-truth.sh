#!/bin/sh
# The set of live objects holds only allocated objects, each once.
#
# Two ways put an object in the set other than its allocation's hook:
# the scan of older objects (scan.c: full slabs, entered pending and
# committed a grace period later) and older objects established by use
# (byuse.c: objects the in-use tick saw touched, committed a period
# later).  Both race the hooks of the same address across a free and a
# reallocation, and the tick's registers can hold free objects (SLUB's
# fast path keeps the next free object in one).  Here: 3,000 objects of
# dprof_workload held since before the load (the scan's), a kthread on
# CPU 0 allocating and freeing one object over and over (its freelist's
# next object sits in registers all along), and CPU 1 freeing and
# reallocating held objects, while dprof loads, scans and runs 6 s,
# following every object (track_one_in=1: no rate rule drops any).
# With the workload stopped, every address of dprof's set
# (test_liveset, the tests' build) must be one the workload holds
# (its "held" file), and none may appear twice.
. ./functions.sh
trap '[ -d "$WL_DIR" ] && echo stop >"$WL_DIR/ctl"; touch "$TMP/stop"; cleanup_modules' EXIT

load_mod dprof_workload
wl alloc 3000 0
wl stress 0
(
	while [ ! -e "$TMP/stop" ]; do
		echo "free 50 1" >"$WL_DIR/ctl" && echo "alloc 50 1" >"$WL_DIR/ctl" || exit 1
	done
) &
churn=$!
load_mod dprof target=dprof_workload track_one_in=1
sleep 6
touch "$TMP/stop"
wait $churn || fail "the reallocating loop failed"
wl stop
sleep 0.5
grep -E "^scan:|older objects" $DPROF_DIR/status
grep "older objects by use" -A1 $DPROF_DIR/status
[ -r "$DPROF_DIR/test_liveset" ] || fail "no test_liveset file (the tests' build of dprof.ko has one)"
awk '$2 == 0 { print $1 }' "$DPROF_DIR/test_liveset" | sort >"$TMP/set"
sort "$WL_DIR/held" >"$TMP/held"
echo "$(wc -l <"$TMP/set") objects of dprof_workload in the set, $(wc -l <"$TMP/held") held by the workload"
[ -s "$TMP/set" ] || fail "no object of dprof_workload in the set"
twice=$(uniq -d "$TMP/set" | wc -l)
# In the set, not held (busybox has no comm).
awk 'NR == FNR { held[$1] = 1; next } !($1 in held)' "$TMP/held" "$TMP/set" >"$TMP/free"
free=$(wc -l <"$TMP/free")
head -n 3 "$TMP/free" | sed 's/^/not held: /'
expect_eq "addresses in the set twice" "$twice" 0
expect_eq "addresses in the set that the workload does not hold" "$free" 0
unload_mod dprof
wl reset
unload_mod dprof_workload
