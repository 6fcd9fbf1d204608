#!/bin/sh
# Watch-sampler accuracy against ground truth: dprof_sharing's fields are
# accessed in known numbers per object (see modules/dprof_sharing.c);
# with ITERS=20 the shares of all accesses are 80/204 (offset 0), 20/204
# (64), 20/204 (72), 41/204 (128), 41/204 (192), 2/204 (256), 0 for the
# padding (8, 264).  Once every pair of the plan has been watched in at
# least R complete histories (R >= 10), each offset has been watched in
# R or R+1 of them (the plan keeps the pairs' counts within one of each
# other), so its share is the expected one times a factor between
# R/(R+1) and (R+1)/R: a share may be off by 1/R of itself, plus three
# standard errors of a share of N samples, sqrt(p(1-p)/N), for anything
# random; the padding must get exactly 0.  Hits the rate limit dropped
# would bias this: the test requires none.
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
# sampler=watch was asked for: anything else is a failure, not a skip.
grep -q "^sampler: watch" $DPROF_DIR/profile ||
	fail "sampler=watch loaded, yet the profile says $(grep '^sampler:' $DPROF_DIR/profile)"
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
	awk -v g="${got:-0}" -v t="$total" -v w="$want" -v o=$off \
	    -v r="$rounds" '
	# busybox awk has no sqrt(): Newton steps.
	function root(x, y, i) {
		if (x <= 0) return 0
		y = x < 1 ? 1 : x
		for (i = 0; i < 60; i++) y = (y + x / y) / 2
		return y
	}
	BEGIN {
		share = g / t; want = w / 204
		d = share - want; if (d < 0) d = -d
		tol = want / r + 3 * root(want * (1 - want) / t)
		printf "offset %3d: %5.2f%% of %d samples, expected %5.2f%% +- %.2f\n", o, 100 * share, t, 100 * want, 100 * tol
		if (w == 0) bad = g != 0; else bad = d > tol
		exit bad }' ||
		fail "offset $off is outside its tolerance"
done
echo "ok: watch-sampler shares match the workload ($total samples, $rounds rounds)"
unload_mod dprof
unload_mod dprof_sharing
exit 0
