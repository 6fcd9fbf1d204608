#!/bin/sh
# Hand-offs against ground truth: an object written on one CPU and then
# used on another moves its lines once per life, and classify must say so
# per field (handoff) and per line (moved in every life).  dprof_sharing
# in lockstep (A's and B's iterations alternate), ITERS iterations, the
# three fields below watched together in every history.  From the
# module's source (sharing_obj_init, sharing_iter_a/b, thread_a/b):
#   read_mostly (128, line 2): A writes it at init, then A and B read it
#     once per iteration, A first: B's first read follows A's write, a
#     transfer; every later read hits.  1 + 2 ITERS accesses, 1 transfer:
#     handoff, moved by A's write to 128, the line moved in every life;
#   private_count (192, line 3): A's init write, then A reads and writes
#     it each iteration; B never touches it: neither, never moved;
#   handoff_seq (256, line 4): A writes it once before queueing the
#     object, B reads it once after taking it, then frees: 2 accesses, 1
#     transfer: handoff, moved by A's write to 256, in every life.
# The free pointer is outside the object (the cache has a constructor),
# so SLUB's own writes touch none of these lines.
# Coverage: the recording keeps the plan, so an offset no history watched
# is a row, and record --until covered=N stops once every group has N.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/handoff.dprof
iters=4
want=8		# complete histories

load_mod dprof_sharing
load_mod dprof target=dprof_sharing sampler=off history_offsets=128,192,256
# Coverage first: recorded with no workload, the plan's three offsets
# and their lines are rows with no history (n 0, undecided), not gaps.
dprof-view record -o "$TMP/idle.dprof" -d 1 || fail "idle record failed"
dprof-view classify -t dprof_sharing "$TMP/idle.dprof"
dprof-view classify --script -t dprof_sharing "$TMP/idle.dprof" >"$TMP/idle" ||
	fail "classify of the idle recording failed"
rows=$(awk '$1 == "field" && $4 == "undecided" && $11 == 0 { f++ }
	$1 == "line" && $4 == "undecided" && $10 == 0 { l++ }
	END { print f + 0, l + 0 }' "$TMP/idle")
expect_eq "fields and lines with no history, listed" "$rows" "3 3"
# The workload runs until record's goal stops it (SIGTERM): every group
# of the plan (one here) with $want complete histories.
cat >"$TMP/handoff-run.sh" <<EOS
while echo "run 20 $iters 0 1 0 1" >/sys/kernel/debug/dprof_sharing/ctl; do :; done
EOS
dprof-view record --until covered=$want -d 120 -o "$out" -- sh "$TMP/handoff-run.sh" \
	2>"$TMP/record.err" || fail "record failed: $(cat "$TMP/record.err")"
cat "$TMP/record.err"
grep -q "goal covered=$want met" "$TMP/record.err" ||
	fail "record did not say that the goal was met"
dprof-view info "$out" | grep "^until:"
dprof-view info "$out" | grep -q "^until: *covered=$want, met (ended by goal)" ||
	fail "the recording does not say that the goal ended it"
grep "rounds complete" $DPROF_DIR/histories
# The other goal: every label of the type decided.  Each life here is
# like the others (lockstep), so the intervals close within a few
# histories; the recording must end by the goal, with no label undecided.
dprof-view record --until decided=dprof_sharing -d 120 -o "$TMP/decided.dprof" \
	-- sh "$TMP/handoff-run.sh" 2>"$TMP/decided.err" ||
	fail "record --until decided failed: $(cat "$TMP/decided.err")"
cat "$TMP/decided.err"
grep -q "goal decided=dprof_sharing met" "$TMP/decided.err" ||
	fail "record did not say that goal decided was met"
dprof-view info "$TMP/decided.dprof" | grep -A1 "^until:"
dprof-view info "$TMP/decided.dprof" |
	grep -q "^until: *decided=dprof_sharing, met (ended by goal)" ||
	fail "the recording does not say that goal decided ended it"
labels=$(dprof-view classify --script -t dprof_sharing "$TMP/decided.dprof" |
	awk '$1 == "field" || $1 == "line" { n++; u += $4 == "undecided" }
		END { print u + 0, n + 0 }')
expect_eq "labels undecided, of all, at the goal" "$labels" "0 6"
unload_mod dprof
dprof-view classify -t dprof_sharing "$out"
dprof-view classify --script -t dprof_sharing "$out" >"$TMP/classes" ||
	fail "classify failed"
h=$(awk '$1 == "field" && $3 == 128 { print $11 }' "$TMP/classes")
[ "${h:-0}" -ge $want ] || fail "only ${h:-0} complete histories watched offset 128"
echo "complete histories: $h"

# field OFFSET LABEL ACCESSES TRANSFERS WRITERS: one row of the script
field() {
	set -- "$@" $(awk -v o="$1" '$1 == "field" && $3 == o' "$TMP/classes")
	[ $# -gt 5 ] || fail "no classification for offset $1"
	expect_eq "offset $1: label, accesses, transfers, moved by" \
		"$9 ${10} ${13} ${15}" "$2 $3 $4 $5"
}
field 128 handoff $((h * (1 + 2 * iters))) "$h" 128
field 192 neither $((h * (1 + 2 * iters))) 0 -
field 256 handoff $((2 * h)) "$h" 256

# line LINE LABEL MOVED: moved in MOVED of the h lives that watched it
line() {
	set -- "$@" $(awk -v l="$1" '$1 == "line" && $3 == l' "$TMP/classes")
	[ $# -gt 4 ] || fail "no line $1"
	expect_eq "line $1: label, moved in lives" "$7 ${16} of ${17}" \
		"$2 $3 of $h"
}
line 2 handoff "$h"
line 3 neither 0
line 4 handoff "$h"
echo "ok: lines 2 and 4 moved to CPU 1 in $h of $h lives, line 3 in none"
unload_mod dprof_sharing
exit 0
