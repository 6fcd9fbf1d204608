#!/bin/sh
# Watch-sampler accuracy against ground truth: dprof_sharing's fields are
# accessed in known numbers per object (see modules/dprof_sharing.c);
# with ITERS=20 the shares of all accesses are 80/204 (offset 0), 20/204
# (64), 20/204 (72), 41/204 (128), 41/204 (192), 2/204 (256), 0 for the
# padding (8, 264).  The watch sampler's per-offset sample shares must
# match within 5 percentage points once every pair of the plan has been
# watched in at least 10 complete histories: the plan keeps the pairs'
# history counts within one of each other, so a share can be off by at
# most a tenth of itself (at most 3.9 points for the largest), plus
# hits the rate limit dropped, which the test requires to be zero.
. ./functions.sh
trap cleanup_modules EXIT
iters=20
expected() {
	case $1 in
	0) echo 80 ;; 64|72) echo 20 ;; 128|192) echo 41 ;; 256) echo 2 ;; *) echo 0 ;;
	esac
}

load_mod dprof_sharing
load_mod dprof target=dprof_sharing sampler=watch \
	history_offsets=0,64,72,128,192,256,8,264
grep -q "^sampler: watch" $DPROF_DIR/profile || skip "the watch sampler is not in use"
i=0
while [ $i -lt 200 ]; do
	echo "run 500 $iters 0 1" >/sys/kernel/debug/dprof_sharing/ctl ||
		fail "the sharing workload failed"
	rounds=$(plan_count rounds)
	[ "${rounds:-0}" -ge 10 ] && break
	i=$((i + 1))
done
[ "${rounds:-0}" -ge 10 ] || fail "only ${rounds:-0} complete rounds of the plan"
cat $DPROF_DIR/profile
grep -q "0 dropped by history_max_hits" $DPROF_DIR/histories ||
	fail "hits were dropped by the rate limit"
awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $3 ~ /%$/ { print $1, $2 }' $DPROF_DIR/profile \
	>"$TMP/shares"
total=$(awk '{ s += $2 } END { print s + 0 }' "$TMP/shares")
[ "$total" -gt 0 ] || fail "no samples"
for off in 0 64 72 128 192 256 8 264; do
	got=$(awk -v o=$off '$1 == o { print $2 }' "$TMP/shares")
	want=$(expected $off)
	awk -v g="${got:-0}" -v t="$total" -v w="$want" -v o=$off 'BEGIN {
		share = 100 * g / t; want = 100 * w / 204
		d = share - want; if (d < 0) d = -d
		printf "offset %3d: %5.1f%% of %d samples, expected %5.1f%%\n", o, share, t, want
		exit d > 5 }' || fail "offset $off is off by more than 5 points"
done
echo "ok: watch-sampler shares match the workload within 5 points ($total samples, $rounds rounds)"
unload_mod dprof
unload_mod dprof_sharing
exit 0
