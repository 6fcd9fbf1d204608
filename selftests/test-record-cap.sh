#!/bin/sh
# dprof-view record -d TIME -- COMMAND, with a COMMAND that runs longer:
# the recording ends at the time cap and the command with it (SIGTERM,
# as perf record ends its workload), not a silent wait for the command
# while the rings fill.  A command that ignores SIGTERM gets SIGKILL
# after record's 5 s grace.  Both recordings must read back whole
# (info), say what ended them, and record's status is 0: the command's
# end was record's doing.  The bounds are wide (a 2 s cap, 20 s or 30 s
# allowed under TCG): what fails is a wait for the command's own 600 s.
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof target=kmalloc-64
out=$TMP/cap.dprof
t0=$(date +%s)
dprof-view record --no-progress -d 2 -o "$out" -- \
	sh -c "echo \$\$ >$TMP/cap.pid; exec sleep 600" 2>"$TMP/cap.err" ||
	fail "record -d 2 -- sleep 600 failed: $(cat "$TMP/cap.err")"
t=$(($(date +%s) - t0))
cat "$TMP/cap.err"
[ "$t" -le 20 ] || fail "record -d 2 took $t s: it waited for the command"
grep -q "still runs: sent SIGTERM" "$TMP/cap.err" ||
	fail "no line said the command was ended at the time cap"
dprof-view info "$out" >"$TMP/cap.info" || fail "the recording does not read back"
grep -q "^ended by: *time cap$" "$TMP/cap.info" ||
	fail "info does not say the time cap ended it: $(grep -i ended "$TMP/cap.info")"
! kill -0 "$(cat "$TMP/cap.pid")" 2>/dev/null ||
	fail "the command outlived the recording"
echo "ok: -d 2 with a 600 s command ended in $t s, the command with it"

out=$TMP/cap-stubborn.dprof
t0=$(date +%s)
dprof-view record --no-progress -d 2 -o "$out" -- \
	sh -c 'trap "" TERM; while :; do sleep 0.2; done' 2>"$TMP/cap.err" ||
	fail "record of a command that ignores SIGTERM failed: $(cat "$TMP/cap.err")"
t=$(($(date +%s) - t0))
cat "$TMP/cap.err"
[ "$t" -le 30 ] || fail "record -d 2 of a command ignoring SIGTERM took $t s"
grep -q "sent SIGKILL" "$TMP/cap.err" ||
	fail "no line said the command that ignored SIGTERM was killed"
dprof-view info "$out" >/dev/null || fail "the second recording does not read back"
echo "ok: a command ignoring SIGTERM was killed after the grace; recording ended in $t s"
