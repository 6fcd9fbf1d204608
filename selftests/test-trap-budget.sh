#!/bin/sh
# The trap budget (watch_max_traps): sample windows on dprof_sharing
# objects, whose watched offsets are touched some 8 times a millisecond
# (test-sampler-windows: 10 accesses an iteration, iterations 1 ms apart;
# a group of four offsets holds most of them), so one 20 ms window traps
# some 100-200 times and unbounded windows, back to back, would trap
# thousands of times a second.  With watch_max_traps=100 a window that
# trapped T times holds the next off until T/100 s after it began, so
# over any stretch the traps stay below 100 a second plus the last
# window's own (the next rest is still to come): the test allows 100 a
# second of its own wall time (which holds the module's) plus 1,000, a
# tenth of what the same windows trap without the bound in 5 s, and asks
# for turns put off.  The estimates are not checked here: a rest changes
# when the next window opens, not what a window counts
# (test-sampler-windows checks the shares at the default budget, which
# its 1 ms pace never reaches).
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof_sharing
t0=$(date +%s)
load_mod dprof target=dprof_sharing sampler=watch history=0 \
	sample_window_ms=20 watch_max_traps=100
grep -q "watch_max_traps=100/s" $DPROF_DIR/histories ||
	fail "status does not show the budget: $(grep 'traps:' $DPROF_DIR/histories)"
pause_us=1000
kasan_kernel && pause_us=10000
i=0
while [ $i -lt 5 ]; do
	echo "run 1 1000 0 1 $pause_us" >/sys/kernel/debug/dprof_sharing/ctl ||
		fail "the sharing workload failed"
	i=$((i + 1))
done
line=$(grep "^  traps:" $DPROF_DIR/histories)
secs=$(($(date +%s) - t0 + 1))
echo "$line (after ${secs} s)"
grep "^sample windows:" $DPROF_DIR/histories
traps=$(echo "$line" | awk '{ print $2 }')
rests=$(echo "$line" | sed -n 's/.*: \([0-9]*\) turns put off.*/\1/p')
[ -n "$traps" ] && [ -n "$rests" ] || fail "no traps line in status: $line"
[ "$traps" -gt 0 ] || fail "no trap at all: the windows watched nothing"
[ "$rests" -gt 0 ] || fail "no turn was put off: the budget never bound"
[ "$traps" -le $((100 * secs + 1000)) ] ||
	fail "$traps traps in ${secs} s: more than watch_max_traps=100/s allows (plus 1000)"
windows=$(awk '/^sample windows:/ { print $3 + $7 }' $DPROF_DIR/histories)
echo "$windows windows in ${secs} s"
echo "ok: $traps traps in ${secs} s under watch_max_traps=100, $rests turns put off"
unload_mod dprof
unload_mod dprof_sharing
exit 0
