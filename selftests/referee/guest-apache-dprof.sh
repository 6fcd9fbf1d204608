#!/bin/sh
# In the Debian guest, under the referee (scripts/case-referee.sh -a): a
# second real server judged, Debian's Apache (mpm_event, its default
# page of 10.7 KB) pinned to CPU 0 answering ab over loopback, with
# dprof.ko target=all recording, as make case-apache runs it.  Its
# arguments: the requests ab sends (default 2,000), ab's concurrency
# (default 4), more dprof.ko parameters, and the referee's window: load
# (ab's run, the default) or record (from dprof.ko's load to the end of
# the load: the operand sampler's tables count from the load).  Writes
# the recording and a log to /host.
cd /selftests && . ./functions.sh
trap 'apache2 -k stop 2>/dev/null; cleanup_modules' EXIT
command -v apache2 >/dev/null || skip "not in the Debian guest (scripts/vm.sh -r debian)"
N=${1:-2000}
C=${2:-4}
# shellcheck disable=SC2086
PARAMS=${3:-}
WINDOW=${4:-load}
referee_window "$WINDOW"
. /etc/apache2/envvars
mkdir -p /run/lock "$APACHE_RUN_DIR" "$APACHE_LOG_DIR" "$APACHE_LOCK_DIR"
# Up and answering before dprof.ko loads: its start is not in the window.
taskset -c 0 apache2 -k start 2>/dev/null || fail "apache2 would not start"
loop_until 'ab -q -n 1 -c 1 http://127.0.0.1/ >/dev/null 2>&1' ||
	fail "apache2 does not answer"
# shellcheck disable=SC2086
referee_load_dprof $PARAMS
eval "$at_load"
dprof-view record --no-progress -o /host/apache.dprof -- \
	sh -c "$at_start && taskset -c $client ab -q -n $N -c $C http://127.0.0.1/ >/tmp/ab.txt && $at_end" \
	>/host/apache.log 2>&1 ||
	fail "record around ab failed: $(cat /host/apache.log /tmp/ab.txt)"
grep -E "^(Complete|Failed) requests" /tmp/ab.txt >>/host/apache.log
grep -E "in use \(old|objects in use:|item hints:|^  hook |perf:inuse-tick|^operand sampler|operands sampled|right after an sti|by delay after expiry" \
	"$DPROF_DIR/status" >>/host/apache.log
unload_mod dprof
exit 0
