#!/bin/sh
# Watch sampler, windows only (history=0): short debug-register windows on
# random live objects.  dprof_sharing objects live for ITERS iterations;
# in each iteration CPU A bumps shared_count (read + write, offset 0),
# writes written_by_a (64), reads read_mostly (128) and bumps
# private_count (read + write, 192), and CPU B bumps shared_count, writes
# written_by_b (72) and reads read_mostly: 10 accesses, so while an object
# lives its offsets take 40/10/10/20/20 % of the accesses, and the padding
# (8, 264) none; handoff_seq (256) is touched twice per life, which is
# nothing next to 10 x 1000.  Iterations are 1 ms apart (PAUSE_US), a
# pace at which the #DB of each trapped access (10-40 us under TCG) barely
# changes how often the threads touch the fields; in a tight loop it would
# (every watched CPU becomes trap-bound, see Documentation/design.rst).
# At 200 us the pair with offset 0 (5 traps per iteration) was slowed
# enough to read 35.8 % instead of 40 % on the 6.12 guest.
# The windows' per-offset sample shares must match within 5 points once
# every group of offsets was watched for at least 600 ms (30 windows'
# worth).  The groups are watched in turn, so a share compares accesses
# counted in different windows: TCG's pace varies between them, and with
# 300 ms per group one clean-clone run in several read offset 192 (in the
# second group) at 26.8 % instead of 20 %.
# Under KASAN a trap takes about 100 us of wall time (inferred from the
# shares, see kasan_kernel): at 1 ms the first group's
# iterations (8 trapped accesses) ran 1.5 times longer than the second's
# (2), and offset 192 read 27.4 %; there the iterations are 10 ms apart,
# which brings that ratio to about 1.06 (see kasan_kernel).
. ./functions.sh
trap cleanup_modules EXIT
expected() {
	case $1 in
	0) echo 40 ;; 64|72) echo 10 ;; 128|192) echo 20 ;; *) echo 0 ;;
	esac
}

load_mod dprof_sharing
# watch_slots=4: the eight offsets in two groups of four, which the
# windows take in turns and so watch about as long; the raw counts below
# assume it.  At the default (three registers) the three groups' watch
# times differed by a fifth (644-791 ms) and offset 0 read 32 % for 40;
# the view's per-window shares, checked after, do not depend on it.
load_mod dprof target=dprof_sharing sampler=watch history=0 watch_slots=4 \
	sample_window_ms=20 history_offsets=0,64,72,128,192,256,8,264
grep -q "^sampler: watch" $DPROF_DIR/profile || fail "sampler is not watch"
pause_us=1000
kasan_kernel && pause_us=10000
# dprof-view records alongside, for the windows' own records (below).
dprof-view record --no-progress -o "$TMP/windows.dprof" 2>"$TMP/record.err" &
rec=$!
i=0
while [ $i -lt 100 ]; do
	echo "run 1 1000 0 1 $pause_us" >/sys/kernel/debug/dprof_sharing/ctl ||
		fail "the sharing workload failed"
	watched=$(awk '/watched per group/ { split($NF == "ms" ? $(NF - 1) : "", r, "-"); print r[1] }' \
		$DPROF_DIR/histories)
	# 10 ms apart (KASAN), 600 ms of windows per group held 760 samples
	samples=$(awk '/^samples:/ { sub(",", "", $2); print $2 }' $DPROF_DIR/profile)
	[ "${watched:-0}" -ge 600 ] && [ "${samples:-0}" -ge 1000 ] && break
	i=$((i + 1))
done
cat $DPROF_DIR/histories
[ "${watched:-0}" -ge 600 ] ||
	fail "pairs watched only ${watched:-0} ms each in sample windows"
full=$(awk '/^sample windows:/ { print $3 }' $DPROF_DIR/histories)
grep -q "^watch samples: [1-9][0-9]* from sample windows on live objects, 0 from history watches" \
	$DPROF_DIR/profile || fail "samples did not come from windows alone: $(grep '^watch samples' $DPROF_DIR/profile)"
cat $DPROF_DIR/profile
awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $3 ~ /%$/ { print $1, $2 }' $DPROF_DIR/profile \
	>"$TMP/shares"
total=$(awk '{ s += $2 } END { print s + 0 }' "$TMP/shares")
[ "$total" -ge 1000 ] || fail "only $total samples"
for off in 0 64 72 128 192 256 8 264; do
	got=$(awk -v o=$off '$1 == o { print $2 }' "$TMP/shares")
	want=$(expected $off)
	awk -v g="${got:-0}" -v t="$total" -v w="$want" -v o=$off 'BEGIN {
		share = 100 * g / t
		d = share - w; if (d < 0) d = -d
		printf "offset %3d: %5.1f%% of %d samples, expected %5.1f%%\n", o, share, t, w
		exit d > 5 }' || fail "offset $off is off by more than 5 points"
done
echo "ok: window shares match the workload within 5 points ($total samples, $full windows)"

# dprof-view's field shares come from the windows' records: samples per
# window that watched the field, the windows the units of their 95%
# intervals.  The
# intervals measure the windows' spread only: TCG's pace between groups
# (above) is a bias they do not hold, hence the same 5 points.
kill -INT $rec
wait $rec || fail "record failed: $(cat "$TMP/record.err")"
dprof-view profile -t dprof_sharing "$TMP/windows.dprof" | head -24
dprof-view profile --script -t dprof_sharing "$TMP/windows.dprof" |
	awk -F '\t' '$1 == "field" { print $3, $8, $14, $15 }' >"$TMP/view-shares"
for off in 0 64 72 128 192; do
	set -- $(awk -v o=$off '$1 == o' "$TMP/view-shares")
	[ $# -eq 4 ] || fail "offset $off: no share with an interval in the view: $*"
	want=$(expected $off)
	awk -v g="$2" -v h="$3" -v n="$4" -v w="$want" -v o=$off 'BEGIN {
		d = g - w; if (d < 0) d = -d
		printf "offset %3d: %5.1f%% +- %.1f over %d windows, expected %5.1f%%\n", o, g, h, n, w
		# as above, 5 points of pace; twice the half-width where wider
		exit n < 2 || h == "-" || d > (2 * h > 5 ? 2 * h : 5) }' ||
		fail "offset $off: the view's share or interval does not hold the workload's"
done
# The padding took no sample: listed as watched with none, not left out
# (handoff_seq, 256, touched twice a life, may be listed too).
nosample=$(dprof-view profile -t dprof_sharing "$TMP/windows.dprof" |
	sed -n 's/.*watched by the plan, no sample (n 0) at [0-9]* offsets*://p')
echo "watched, no sample:$nosample"
for off in 8 264; do
	case " $nosample " in
	*" $off "*) ;;
	*) fail "the padding at $off is not listed as watched without samples" ;;
	esac
done
echo "ok: the view's per-window shares and intervals hold the workload's"
unload_mod dprof
unload_mod dprof_sharing
exit 0
