#!/bin/sh
# In the Debian guest, under the referee (scripts/case-referee.sh): a
# real server judged (issue "A referee on real workloads", item 5).
# Debian's memcached pinned to CPU 0 takes UDP sets from Debian's
# memcslap on CPU 1, as debian/test-memcached-all.sh runs them, with
# dprof.ko target=all recording, the whole-kernel mode a user starts
# with (case-referee.sh passes sampler=watch, or none under -o).  The referee measures between the two sync(1) calls
# around memcslap (memcached is up before).
# Writes the recording, memcslap's output and memcached's count of sets
# to /host.  Its arguments: the sets to send (default 8,000: 2 minutes
# under the plugin), more dprof.ko parameters (none by default), and TCP
# gets to send after the sets (default none; issue "real applications"'
# run sends half as many gets as sets), and the referee's window: load
# (the default: memcslap's run) or record (from the load to the end of
# the load, memcached's start and dprof-view record's own reads of BTF,
# kallsyms and the rings included: the samples' tables count from the
# load, sampler=operand).
cd /selftests && . ./functions.sh
trap 'pkill -x memcached; cleanup_modules' EXIT
command -v memcached >/dev/null || skip "not in the Debian guest (scripts/vm.sh -r debian)"
N=${1:-8000}
# shellcheck disable=SC2086
PARAMS=${2:-}
GETS=${3:-0}
WINDOW=${4:-load}
referee_window "$WINDOW"
# shellcheck disable=SC2086
referee_load_dprof $PARAMS
eval "$at_load"
taskset -c 0 memcached -u nobody -U 11211 -p 11211 -l 127.0.0.1 -t 1 &
loop_until 'memcstat --servers=127.0.0.1:11211 >/dev/null 2>&1' ||
	fail "memcached did not come up"
# The referee's window (sync to sync, each sync turns it on or off) is
# the load, inside the recording (see guest-udp-dprof.sh), or from
# dprof.ko's load to the load's end.
gets=true
[ "$GETS" -gt 0 ] &&
	gets="taskset -c $client memcslap -s 127.0.0.1:11211 -t get -e $GETS -c 1 >/dev/null"
dprof-view record --no-progress -o /host/memcached.dprof -- \
	sh -c "$at_start && taskset -c $client memcslap -s 127.0.0.1:11211 --udp -t set -e $N -c 1 && $gets && $at_end" \
	>/host/memcached.log 2>&1 ||
	fail "record around memcslap failed: $(cat /host/memcached.log)"
memcstat --servers=127.0.0.1:11211 |
	awk '$1 == "cmd_set:" { print "sets_done " $2 }' >>/host/memcached.log
echo "sets_sent $N" >>/host/memcached.log
echo "tcp_gets_sent $GETS" >>/host/memcached.log
# The windows' draws and the tick's cost, for the log (the recording
# does not keep status).
grep -E "in use \(old|objects in use:|item hints:|^  hook |perf:inuse-tick|^  instructions = |^operand sampler|operands sampled|right after an sti|by delay after expiry" \
	"$DPROF_DIR/status" >>/host/memcached.log
unload_mod dprof
exit 0
