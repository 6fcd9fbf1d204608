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
# capped NAME MAX_S WHAT LINE COMMAND: record -d 2 of COMMAND (a sh -c
# script) into $TMP/NAME.dprof, which must end within MAX_S seconds,
# print LINE (a grep pattern) on stderr and read back; sets t, the
# seconds it took.
capped() {
	t0=$(date +%s)
	dprof-view record --no-progress -d 2 -o "$TMP/$1.dprof" -- \
		sh -c "$5" 2>"$TMP/cap.err" ||
		fail "record -d 2 of $3 failed: $(cat "$TMP/cap.err")"
	t=$(($(date +%s) - t0))
	cat "$TMP/cap.err"
	[ "$t" -le "$2" ] || fail "record -d 2 of $3 took $t s"
	grep -q "$4" "$TMP/cap.err" || fail "no line said \"$4\" for $3"
	dprof-view info "$TMP/$1.dprof" >"$TMP/$1.info" ||
		fail "the recording of $3 does not read back"
}

capped cap 20 "a 600 s command" "still runs: sent SIGTERM" \
	"echo \$\$ >$TMP/cap.pid; exec sleep 600"
grep -q "^ended by: *time cap$" "$TMP/cap.info" ||
	fail "info does not say the time cap ended it: $(grep -i ended "$TMP/cap.info")"
! kill -0 "$(cat "$TMP/cap.pid")" 2>/dev/null ||
	fail "the command outlived the recording"
echo "ok: -d 2 with a 600 s command ended in $t s, the command with it"

capped cap-stubborn 30 "a command ignoring SIGTERM" "sent SIGKILL" \
	'trap "" TERM; while :; do sleep 0.2; done'
echo "ok: a command ignoring SIGTERM was killed after the grace; recording ended in $t s"
