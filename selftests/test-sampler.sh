#!/bin/sh
# Sampler selection: an explicit hardware sampler the machine lacks fails
# the load with one clear line and ENODEV; auto falls back to the watch
# sampler and the profile says misses are not measured; bad values are
# refused with EINVAL.
. ./functions.sh
trap cleanup_modules EXIT

have_ibs=0 have_pebs=0
[ -d /sys/bus/event_source/devices/ibs_op ] && have_ibs=1
[ -e /sys/bus/event_source/devices/cpu/events/mem-loads ] && have_pebs=1
log_canary
if [ $have_ibs -eq 0 ]; then
	expect_load_error 19 dprof target=skbuff sampler=ibs
	dmesg_since_canary | grep -q "sampler=ibs: .*use sampler=watch" ||
		fail "no clear message for sampler=ibs"
	echo "ok: sampler=ibs refused: $(dmesg_since_canary | grep 'sampler=ibs' | tail -n 1)"
fi
if [ $have_pebs -eq 0 ]; then
	expect_load_error 19 dprof target=skbuff sampler=pebs
	dmesg_since_canary | grep -q "sampler=pebs: .*use sampler=watch" ||
		fail "no clear message for sampler=pebs"
	echo "ok: sampler=pebs refused"
fi
expect_load_error 22 dprof target=skbuff sampler=nonsense
expect_load_error 22 dprof target=skbuff sample_window_ms=0
expect_load_error 22 dprof target=skbuff sample_table=1000
echo "ok: bad sampler parameters refused"

seconds=2 histories=
if kasan_kernel; then
	seconds=8 histories=history=0
fi
load_mod dprof target=skbuff $histories
head -n 2 $DPROF_DIR/profile
if [ $have_ibs -eq 0 ] && [ $have_pebs -eq 0 ]; then
	grep -q "^sampler: watch .*accesses, not misses" $DPROF_DIR/profile ||
		fail "auto did not fall back to watch with a note on misses"
	echo "ok: auto picked the watch sampler and says misses are estimated"
fi
udp_flood -s 0 -r 1 -d $seconds >/dev/null
cat $DPROF_DIR/profile
grep -E "^sample windows|costs in instructions" $DPROF_DIR/histories
skip_if_windows_too_slow skbuff_head_cache
awk '$1 == "skbuff_head_cache" && $2 > 0 { found = 1 } END { exit !found }' \
	$DPROF_DIR/profile || fail "the profile shows no skbuff samples"
[ $have_ibs -eq 1 ] || [ $have_pebs -eq 1 ] ||
	awk '$1 == "skbuff_head_cache" { exit $4 != "est." }' $DPROF_DIR/profile ||
	fail "misses are not labelled as estimates"
echo "ok: skbuff_head_cache has samples and hot offsets"
unload_mod dprof

# sample_records=1: every aggregated sample is also a 32-byte record.
# Under TCG the watch sampler's windows and histories can all miss a 2 s
# flood (seen once in a clean-clone run: no sample at all); up to three
# recordings are made until one has samples, since what is checked here
# is that raw records and aggregated samples agree.
load_mod dprof target=skbuff sample_records=1 $histories
for attempt in 1 2 3; do
	dprof-view record -o "$TMP/samples.dprof" -- udp_flood -s 0 -r 1 -d $seconds >/dev/null ||
		fail "recording with sample_records=1 failed"
	dprof-view info "$TMP/samples.dprof" | grep -E "samples|lost"
	raw=$(dprof-view info "$TMP/samples.dprof" | awk '$1 == "raw" { print $3 }')
	agg=$(dprof-view info "$TMP/samples.dprof" | awk '$1 == "samples:" { print $2 }')
	[ "${agg:-0}" -gt 0 ] && break
	echo "note: recording $attempt caught no sample; again"
done
[ "${raw:-0}" -gt 0 ] || fail "no raw sample records"
expect_eq "raw sample records" "$raw" "$agg"
unload_mod dprof
exit 0
