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
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/classify.dprof

load_mod dprof_sharing
load_mod dprof target=dprof_sharing sampler=off history_mode=pairs \
	history_offsets=0,64,72,128,192
cat >"$TMP/classify-run.sh" <<'EOS'
dir=$1
for i in $(seq 100); do
	echo "run 50 20 0 1 0 1" >/sys/kernel/debug/dprof_sharing/ctl || exit 1
	n=$(awk '/rounds complete/ { for (k = 1; k < NF; k++)
		if ($k == "complete") { v = $(k + 1); sub(",", "", v); print v } }' \
		"$dir/histories" | tail -n 1)
	[ "${n:-0}" -ge 2 ] && exit 0
done
exit 0
EOS
dprof-view record -o "$out" -- sh "$TMP/classify-run.sh" "$DPROF_DIR" ||
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
unload_mod dprof_sharing
exit 0
