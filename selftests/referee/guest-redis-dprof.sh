#!/bin/sh
# In the Debian guest, under the referee (scripts/case-referee.sh -s
# redis): a third real server judged, Debian's Redis (one event-loop
# thread, no persistence) pinned to CPU 0 answering redis-benchmark over
# loopback TCP on the other CPU (SET and GET of 3-byte values, 4
# connections, each waiting for its replies), with dprof.ko target=all
# recording.  Its arguments: the requests of each kind (default 4,000),
# more dprof.ko parameters, and the referee's window: load (the
# benchmark's run, the default) or record (from dprof.ko's load to the
# end of the load: the operand sampler's tables count from the load).
# Writes the recording and a log to /host.
cd /selftests && . ./functions.sh
trap 'redis-cli -p 6379 shutdown nosave >/dev/null 2>&1; cleanup_modules' EXIT
command -v redis-server >/dev/null || skip "not in the Debian guest (scripts/vm.sh -r debian)"
N=${1:-4000}
# shellcheck disable=SC2086
PARAMS=${2:-}
WINDOW=${3:-load}
referee_window "$WINDOW"
# Up and answering before dprof.ko loads: its start is not in the window.
taskset -c 0 redis-server --port 6379 --bind 127.0.0.1 --save '' \
	--appendonly no --daemonize yes --logfile /tmp/redis.log ||
	fail "redis-server would not start"
loop_until 'redis-cli -p 6379 ping 2>/dev/null | grep -q PONG' ||
	fail "redis-server does not answer: $(tail -n 3 /tmp/redis.log)"
# shellcheck disable=SC2086
referee_load_dprof $PARAMS
eval "$at_load"
dprof-view record --no-progress -o /host/redis.dprof -- \
	sh -c "$at_start && taskset -c $client redis-benchmark -p 6379 -q -n $N -c 4 -t set,get >/tmp/bench.txt && $at_end" \
	>/host/redis.log 2>&1 ||
	fail "record around redis-benchmark failed: $(cat /host/redis.log /tmp/bench.txt)"
tr '\r' '\n' </tmp/bench.txt | grep -E "^(SET|GET): .*requests per second" | sed 's/^/redis-benchmark /' >>/host/redis.log
redis-cli -p 6379 info stats | tr -d '\r' |
	awk -F: '$1 == "total_commands_processed" { print "commands_done " $2 }' >>/host/redis.log
echo "requests_sent $((2 * N))" >>/host/redis.log
grep -E "in use \(old|objects in use:|item hints:|^  hook |perf:inuse-tick|^operand sampler|operands sampled|right after an sti|by delay after expiry" \
	"$DPROF_DIR/status" >>/host/redis.log
unload_mod dprof
exit 0
