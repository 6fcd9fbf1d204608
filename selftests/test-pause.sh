#!/bin/sh
# Pause (enable=0) stops recording, not the ends of lives.  Objects
# allocated before the pause and freed during it must be seen leaving:
# their frees recorded, the live set emptied; otherwise the resolver
# counts the reused memory as the old objects and the allocations after
# the resume of the same addresses look like duplicates (missed frees).
# Objects allocated and freed while paused are not recorded at all.  The
# numbers follow from the commands below and the workload's FIFO of held
# objects (SLUB hands the freed addresses back out, so they are reused).
# No history may span two lives: a history on an object freed while
# paused must end at that free, or the reuse of its address after the
# resume falls inside it.  Two lives are told apart by the recording's
# address set (an allocation or free of the history's address strictly
# inside its span), not by the history's own bookkeeping.  Churn on CPU 0
# first makes it the collector's busiest CPU; objects are then allocated
# there and held, one at a time, until one is being watched, so a history
# is open when the pause comes (history_timeout_ms=4000 keeps it open).
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/pause.dprof
enable=/sys/module/dprof/parameters/enable

load_mod dprof_workload
load_mod dprof target=dprof_workload history_timeout_ms=4000 track_one_in=1
cat >"$TMP/pause-run.sh" <<EOS
. /selftests/functions.sh
wl "churn 200 0"		# recorded: 200 allocs and frees
# Objects held one at a time until one is watched (K of them, recorded).
k=0
while ! grep -q "^histories: watching" $DPROF_DIR/histories; do
	[ \$k -lt 200 ] || fail "no object allocated on CPU 0 was watched"
	wl "alloc 1 0"
	k=\$((k + 1))
	sleep 0.05
done
echo \$k >$TMP/pause-k
wl "alloc 300 0"		# recorded: 300 allocs
echo 0 >$enable
wl "free \$((300 + k)) 0"	# recorded: lives that began before
wl "alloc 200 0"		# not recorded: paused
wl "free 200 0"			# not recorded: never seen begin
echo 1 >$enable
wl "alloc 300 0"		# recorded, at reused addresses
wl "free 300 0"			# recorded
EOS
dprof-view record -o "$out" -- sh "$TMP/pause-run.sh" || fail "record failed"
k=$(cat "$TMP/pause-k")
echo "$k objects held until one was watched"

expect_eq "workload allocs cpu0" "$(wl_stat allocs 0)" $((1000 + k))
expect_eq "workload misplaced ops" "$(wl_stat misplaced)" 0
# cpu: allocs frees remote_frees
expect_eq "cpu0 row" "$(objects_row "$out" dprof_workload 0)" "$((800 + k)) $((800 + k)) 0"
summary=$(dprof-view objects "$out")
echo "$summary" | grep -q "live at end: 0; frees of objects allocated before the recording: 0" ||
	fail "lives left open by the pause: $(echo "$summary" | grep 'live at end')"
grep -q "^duplicate allocs (missed frees): 0$" "$DPROF_DIR/status" ||
	fail "$(grep '^duplicate allocs' "$DPROF_DIR/status")"
live=$(awk '/^live objects:/ { print $3 }' "$DPROF_DIR/status")
expect_eq "objects in the live set after the run" "$live" 0

dprof-view objects --script "$out" >"$TMP/pause.objects" ||
	fail "objects --script failed"
dprof-view histories --script "$out" >"$TMP/pause.histories" ||
	fail "histories --script failed"
# objects: alloc|free TARGET ADDR CPU TIME FLAGS
# history ID TARGET offsets A alloc_cpu C end_cpu C lifetime_ns N end R
#   complete X dropped N addr ADDR alloc_ns T;  access ID OFF CPU RW TIME ...
result=$(awk '
FILENAME ~ /objects$/ { n[$3]++; t[$3, n[$3]] = $5; k[$3, n[$3]] = $1; next }
$1 == "history" { addr[$2] = $19; begin[$2] = $21
	end[$2] = $13 == "open" ? 0 : $21 + $11; ids[++nh] = $2; next }
$1 == "access" { last = begin[$2] + $6; if (last > span[$2]) span[$2] = last }
END {
	for (i = 1; i <= nh; i++) {
		id = ids[i]; a = addr[id]; b = begin[id]
		e = end[id] ? end[id] : span[id]
		for (j = 1; j <= n[a]; j++)
			if (t[a, j] > b && t[a, j] < e) {
				printf "history %s at %s: %s at %d ns inside its span of %d ns\n", id, a, k[a, j], t[a, j] - b, e - b
				mixed++
			}
	}
	printf "%d histories checked, %d mixing two lives\n", nh, mixed
}' "$TMP/pause.objects" "$TMP/pause.histories")
echo "$result"
checked=$(echo "$result" | awk '/histories checked/ { print $1 }')
[ "$checked" -gt 0 ] || fail "no history to check: $(grep '^histories:' $DPROF_DIR/histories)"
echo "$result" | grep -q ", 0 mixing two lives" || fail "a history spans two lives"
unload_mod dprof
unload_mod dprof_workload
exit 0
