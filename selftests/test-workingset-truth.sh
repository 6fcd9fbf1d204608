#!/bin/sh
# The working-set view against workloads whose cache behaviour is known
# (modules/dprof_sharing.c, "hold"): 64 page-aligned objects touched at
# their first line can only use the sets whose index is a multiple of
# page size / line size (conflict, and those sets are named); 4,096
# 256-byte objects touched at all four lines need 16,384 lines, spread
# evenly (capacity).  The cache is given with --cache (64 KiB, 2-way,
# 64-byte lines: 512 sets) so that the answer does not depend on what the
# emulated CPU reports.  Histories (6 complete per case) tell the view
# which lines the objects touch.
# The LRU simulation must agree, from the same recordings: the
# page-aligned lines miss mostly as conflict misses (a fully associative
# cache of 1,024 lines holds all 64), in sets that are multiples of 64;
# the 16,384 lines miss mostly as capacity misses.
. ./functions.sh
trap cleanup_modules EXIT
geo=64K,2,64
sets=512
stride=$((4096 / 64))	# sets between two page-aligned lines

load_mod dprof_sharing
record_hold() {	# OUT WHAT N
	# The exact address set: 64 objects followed 1 in N (the default
	# raises N for the workload's allocation rate) leave the occupancy
	# model too few addresses to place in sets.
	load_mod dprof target=dprof_$2 sampler=off track_one_in=1 \
		history_offsets=0,64,128,192 history_timeout_ms=4000
	# Rounds until 6 histories are complete (at least 4 rounds, at most
	# 12): which lives a history follows is up to timing, and a run that
	# followed only the last objects of a round, allocated one pass
	# before the final free (2 accesses each, where a typical life has
	# about 60), gave the simulation a template of mostly cold misses.
	dprof-view record -o "$1" -- sh -c ". /selftests/functions.sh
	for i in \$(seq 12); do
		echo 'hold $2 $3 1200' >/sys/kernel/debug/dprof_sharing/ctl || exit 1
		[ \$i -ge 4 ] && [ \$(plan_count histories) -ge 6 ] && exit 0
	done; exit 0" || fail "record of hold $2 failed"
	unload_mod dprof
}

record_hold "$TMP/conflict.dprof" conflict 64
dprof-view workingset -c $geo --sim-max 2000000 "$TMP/conflict.dprof" | tee "$TMP/ws.txt" ||
	fail "workingset failed"
grep -q "^conflict: [0-9]* sets\? hold" "$TMP/ws.txt" || fail "no conflict found"
awk -v st=$stride '$1 == "set" {
		s = $2; sub(":", "", s); n++
		if (s % st) { print "set " s " is not a multiple of " st; bad = 1 }
		if ($0 !~ /dprof_conflict/) { print "set " s " lacks dprof_conflict"; bad = 1 }
	}
	END { exit bad || !n }' "$TMP/ws.txt" || fail "the conflict sets are not the page-aligned ones"
grep -q "^capacity: no" "$TMP/ws.txt" || fail "64 lines called capacity"
echo "ok: conflict in sets that are multiples of $stride, all dprof_conflict"
# Simulated: misses by kind for a type, from the simulation's table.
sim_row() {	# TYPE -> "ACCESSES MISS% COLD% CAPACITY% CONFLICT%"
	awk -v t="$1" '/^LRU simulation/ { on = 1 }
		on && $1 == t { gsub("%", ""); print $3, $4, $5, $6, $7; exit }' "$TMP/ws.txt"
}
set -- $(sim_row dprof_conflict)
[ $# -eq 5 ] || fail "no simulation row for dprof_conflict"
echo "simulated dprof_conflict: $1 accesses, misses $2% (cold $3%, capacity $4%, conflict $5%)"
awk -v a="$1" -v cap="$4" -v con="$5" -v miss="$2" 'BEGIN {
	exit !(a >= 1000 && con >= miss / 2 && con > 10 * cap) }' ||
	fail "the simulated misses of page-aligned lines are not mostly conflict"
awk -v st=$stride '/^sets with the most conflict misses:/ {
		for (i = 7; i <= NF; i++) { split($i, p, ":"); n++
			if (p[1] % st) { print "set " p[1] " is not a multiple of " st; bad = 1 } } }
	END { exit bad || !n }' "$TMP/ws.txt" ||
	fail "the simulated conflict sets are not the page-aligned ones"
echo "ok: simulated conflict misses, in sets that are multiples of $stride"

record_hold "$TMP/capacity.dprof" capacity 4096
dprof-view workingset -c $geo --sim-max 2000000 "$TMP/capacity.dprof" | tee "$TMP/ws.txt" ||
	fail "workingset failed"
grep -q "^capacity: yes" "$TMP/ws.txt" || fail "no capacity problem found"
grep -q "^conflict: none" "$TMP/ws.txt" || fail "evenly spread lines called conflict"
awk '$1 == "dprof_capacity" && $3 >= 3.5 && $3 <= 4.0 { ok = 1 } END { exit !ok }' \
	"$TMP/ws.txt" || fail "dprof_capacity objects do not touch 4 lines each"
echo "ok: capacity, 4 lines per object, no conflict"
set -- $(sim_row dprof_capacity)
[ $# -eq 5 ] || fail "no simulation row for dprof_capacity"
echo "simulated dprof_capacity: $1 accesses, misses $2% (cold $3%, capacity $4%, conflict $5%)"
awk -v a="$1" -v cap="$4" -v con="$5" -v miss="$2" 'BEGIN {
	exit !(a >= 1000 && cap >= miss / 2 && cap > 2 * con) }' ||
	fail "the simulated misses of 16,384 lines are not mostly capacity"
echo "ok: simulated capacity misses"
unload_mod dprof_sharing
exit 0
