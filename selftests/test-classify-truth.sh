#!/bin/sh
# Miss classification against ground truth.  dprof_sharing in lockstep
# (A's and B's iterations alternate, so each access follows the other
# CPU's previous iteration whatever the scheduler does), every pair of
# five fields watched (history_mode=pairs).  From the module's source:
#   shared_count (0), read and written by both CPUs: true sharing;
#   written_by_a (64) and written_by_b (72), one line, each written by one
#     CPU: false sharing, each invalidated by the other's writes;
#   read_mostly (128), written once before B first reads it, and
#   private_count (192), used by A alone: neither.
# The fields are named from the module's DWARF (--debug), as in the
# struct: the text view must put each name on its offset.
# The same recording checks the combined trace (paths --combined): the
# ten pairs' paths put together must give the source's whole-object order,
# A's two initialising writes (128, 192), then per iteration A's
# read/write of 0, write of 64, read of 128, read/write of 192 on CPU 0
# and B's read/write of 0, write of 72, read of 128 on CPU 1: 2 + 10 *
# ITERS steps, a CPU change at each hand between A and B (2 * ITERS - 1),
# every pair watched together, no step placed by time, no order broken.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/classify.dprof

load_mod dprof_sharing
load_mod dprof target=dprof_sharing sampler=off history_mode=pairs \
	history_offsets=0,64,72,128,192
record_rounds "$out" 2 100 \
	'echo "run 50 20 0 1 0 1" >/sys/kernel/debug/dprof_sharing/ctl' ||
	fail "record failed"
grep "rounds complete" $DPROF_DIR/histories
unload_mod dprof
names="--debug $MODDIR/dprof_sharing.ko --type dprof_sharing=dprof_sharing_obj"
dprof-view classify $names "$out" | tee "$TMP/classify.txt" ||
	fail "classify failed"
for f in 0:shared_count 64:written_by_a 72:written_by_b 128:read_mostly \
	192:private_count; do
	off=${f%%:*} name=${f#*:}
	awk -v o="$off" -v n="$name" '$1 == o && $2 == n { ok = 1 } END { exit !ok }' \
		"$TMP/classify.txt" || fail "offset $off is not named $name"
done
echo "ok: fields named from the module's DWARF"
dprof-view classify --script -t dprof_sharing "$out" >"$TMP/classes" ||
	fail "classify failed"
row() { awk -v o="$1" '$1 == "field" && $3 == o' "$TMP/classes"; }
expect_class() {	# OFFSET LABEL WRITERS
	set -- "$1" "$2" "$3" $(row "$1")
	[ $# -gt 3 ] || fail "no classification for offset $1"
	expect_eq "offset $1 label" "$7" "$2"
	[ "$3" = "*" ] || expect_eq "offset $1 invalidated by offsets" "${13}" "$3"
}
expect_class 0 true-sharing 0
expect_class 64 false-sharing 72
expect_class 72 false-sharing 64
expect_class 128 neither "-"
expect_class 192 neither "-"

iters=20
dprof-view paths --combined -n 1 $names "$out" | head -n 12
dprof-view paths --combined --script -n 1 -t dprof_sharing "$out" \
	>"$TMP/combined.txt" || fail "paths --combined failed"
set -- $(grep '^combined ' "$TMP/combined.txt")
[ $# -eq 13 ] || fail "no combined trace: $*"
expect_eq "combined steps" "$5" $((2 + 10 * iters))
expect_eq "combined CPU changes" "$6" $((2 * iters - 1))
expect_eq "combined offsets" "$7" "0,64,72,128,192"
expect_eq "offset pairs watched together" "$8 of $9" "10 of 10"
expect_eq "steps placed by time" "${10}" 0
expect_eq "histories' orderings broken" "${11}" 0
awk '
	$1 != "cstep" { next }
	{ i = $4; fn = $11; sub(/\+.*/, "", fn)
	  got = $6 " " $7 " " $8 " " $9 " " fn }
	i == 0 { want = "128 write same ordered sharing_obj_init" }
	i == 1 { want = "192 write same ordered sharing_obj_init" }
	i >= 2 {
		k = (i - 2) % 10
		a = "sharing_iter_a"; b = "sharing_iter_b"
		if (k == 0) want = "0 read " (i == 2 ? "same" : "change") " ordered " a
		if (k == 1) want = "0 write same ordered " a
		if (k == 2) want = "64 write same ordered " a
		if (k == 3) want = "128 read same ordered " a
		if (k == 4) want = "192 read same ordered " a
		if (k == 5) want = "192 write same ordered " a
		if (k == 6) want = "0 read change ordered " b
		if (k == 7) want = "0 write same ordered " b
		if (k == 8) want = "72 write same ordered " b
		if (k == 9) want = "128 read same ordered " b
	}
	{
		if (got != want) { printf "step %d: %s, expected %s\n", i, got, want; bad = 1 }
	}
	END { exit bad }' "$TMP/combined.txt" ||
	fail "the combined trace is not the source's order"
echo "ok: ten pairs combined into the source's $((2 + 10 * iters))-step order"

# The same life classified per line with every field in view (classify
# --combined).  Per life, from the source (ITERS iterations, A first):
#   line 0 (shared_count): A and B each read then write it every
#     iteration: 4 ITERS accesses; A's first read a first touch, B's first
#     a transfer, every later read true sharing (2 ITERS - 2), the writes
#     hits (2 ITERS);
#   line 1 (written_by_a, written_by_b): one write each per iteration:
#     2 ITERS accesses; a first touch, a transfer, then false sharing;
#   line 2 (read_mostly): A's init write, then reads by both: 1 + 2 ITERS
#     accesses, a first touch, B's first read a transfer, the rest hits;
#   line 3 (private_count): A alone: 1 + 2 ITERS accesses, one first
#     touch, hits.
dprof-view classify --combined -t dprof_sharing "$out"
dprof-view classify --combined --script -t dprof_sharing "$out" >"$TMP/cl.txt" ||
	fail "classify --combined failed"
set -- $(awk '$1 == "ctrace" && $3 == 1' "$TMP/cl.txt")
expect_eq "combined classification exact (pairs watched, no step by time, CPUs known)" "$6" 1
cline() {	# LINE ACCESSES HITS TRUE FALSE TRANSFERS FIRST
	got=$(awk -v l="$1" '$1 == "cline" && $3 == 1 && $4 == l { print $6, $7, $8, $9, $10, $11 }' "$TMP/cl.txt")
	expect_eq "line $1 per life: accesses hits true false transfers first" "$got" "$2 $3 $4 $5 $6 $7"
}
i=$iters
cline 0 $((4 * i)) $((2 * i)) $((2 * i - 2)) 0 1 1
cline 1 $((2 * i)) 0 0 $((2 * i - 2)) 1 1
cline 2 $((1 + 2 * i)) $((2 * i - 1)) 0 0 1 1
cline 3 $((1 + 2 * i)) $((2 * i)) 0 0 0 1

# The layout proposal (dprof-view advise) from the same histories.  From
# the source: written_by_a is written only by A (the allocating thread's
# CPU) and written_by_b only by B, on one line: the false sharing above.
# Any proposal must put them on two lines, leave no line with two CPUs'
# writes, and its replay must show no false sharing where today's shows
# it; keeping today's order fails.
dprof-view advise $names "$out" dprof_sharing | tee "$TMP/advise.txt" ||
	fail "advise failed"
off() { awk -v m="$1" '$1 == m && $2 ~ /^[0-9]+$/ { print $3; exit }' "$TMP/advise.txt"; }
a=$(off written_by_a) b=$(off written_by_b)
[ -n "$a" ] && [ -n "$b" ] || fail "advise lists no offsets for written_by_a/b"
[ $((a / 64)) -ne $((b / 64)) ] ||
	fail "advise keeps written_by_a ($a) and written_by_b ($b) on one line"
grep -q "^lines holding two sides' writes: 1 today, 0 proposed" "$TMP/advise.txt" ||
	fail "advise leaves a line with two sides' writes: $(grep '^lines holding' "$TMP/advise.txt")"
! grep -q "keep it" "$TMP/advise.txt" || fail "advise proposes today's order"
set -- $(awk '$1 == "false" && $2 == "sharing" { print $3, $4 }' "$TMP/advise.txt")
[ "${1:-0}" -gt 0 ] && [ "${2:-1}" -eq 0 ] ||
	fail "replayed false sharing today $1, proposed $2: expected some, then none"
echo "ok: advise puts written_by_a at $a and written_by_b at $b; false sharing $1 -> $2 by the replay"
unload_mod dprof_sharing
exit 0
