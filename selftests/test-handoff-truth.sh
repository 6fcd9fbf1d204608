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
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/handoff.dprof
iters=4
want=8		# complete histories

load_mod dprof_sharing
load_mod dprof target=dprof_sharing sampler=off history_offsets=128,192,256
skip_if_quarantine
cat >"$TMP/handoff-run.sh" <<EOS
. /selftests/functions.sh
for i in \$(seq 100); do
	echo "run 20 $iters 0 1 0 1" >/sys/kernel/debug/dprof_sharing/ctl || exit 1
	[ "\$(plan_count histories)" -ge $want ] && exit 0
done
exit 0
EOS
dprof-view record -o "$out" -- sh "$TMP/handoff-run.sh" || fail "record failed"
grep "rounds complete" $DPROF_DIR/histories
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
