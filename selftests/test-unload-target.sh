#!/bin/sh
# The profiled module is unloaded (its cache destroyed) while dprof runs
# histories, sample windows and the watch sampler on it under allocation
# load, five times, each inside a recording.  Expected each round: the
# recording ends normally and reads back, the target is DESTROYED in
# status and in the recording, the live set holds nothing of it, and no
# history is still watching; at the end every debug register comes back
# and the kernel reported nothing (the init script also fails the run on
# any oops or warning).
. ./functions.sh
trap '[ -d $WL_DIR ] && echo stop >$WL_DIR/ctl; cleanup_modules' EXIT
log_canary
out=$TMP/unload-target.dprof

cat >"$TMP/unload-target-run.sh" <<'EOS'
. /selftests/functions.sh
wl "stress 1"
for i in 1 2 3 4 5 6; do
	wl "churn 300 0"
	wl "alloc 20 0"
	wl "handoff 20 0 1"
done
rmmod dprof_workload	# the stress thread runs until the module exit
EOS

slots=
for round in 1 2 3 4 5; do
	load_mod dprof_workload
	load_mod dprof target=dprof_workload sampler=watch history_wait_ms=20 \
		sample_window_ms=5
	[ -n "$slots" ] ||
		slots=$(awk '/debug registers:/ {print $3}' $DPROF_DIR/histories)
	dprof-view record -o "$out" -- sh "$TMP/unload-target-run.sh" ||
		fail "round $round: recording failed"
	[ ! -d /sys/module/dprof_workload ] ||
		fail "round $round: dprof_workload did not unload"
	grep -q "^  \[0\] .*DESTROYED" "$DPROF_DIR/status" ||
		fail "round $round: target not marked destroyed"
	dprof-view info "$out" >"$TMP/unload-target.info" ||
		fail "round $round: the recording does not read back"
	grep -q "dprof_workload.*DESTROYED" "$TMP/unload-target.info" ||
		fail "round $round: the recording does not say the target was destroyed: $(grep dprof_workload $TMP/unload-target.info)"
	loop_until '! grep -q "^histories: watching" $DPROF_DIR/histories' ||
		fail "round $round: still watching after the destroy"
	# The module freed every object before destroying its cache.
	expect_eq "round $round: objects in the live set" \
		"$(awk '/^live objects:/ { print $3 }' "$DPROF_DIR/status")" 0
	echo "round $round: $(grep -E '^  (ends|reserve):' $DPROF_DIR/histories | tr -s ' ' | tr '\n' ' ')"
	unload_mod dprof
done
[ -n "$slots" ] && [ "$slots" -gt 0 ] || skip "no debug registers free"
load_mod dprof_workload
load_mod dprof target=dprof_workload
expect_eq "debug registers after 5 destroys" \
	"$(awk '/debug registers:/ {print $3}' $DPROF_DIR/histories)" "$slots"
unload_mod dprof
unload_mod dprof_workload
dmesg_since_canary | grep -E "Objects remaining|BUG|WARNING|general protection" &&
	fail "the kernel reported an error"
echo "ok: 5 unloads of the profiled module under load"
exit 0
