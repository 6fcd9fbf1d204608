#!/bin/sh
# Allocations of dprof's init fail in turn, in every step of it, and each
# failure is clean.
#
# For the debug kernel of make check-debug (fault injection built in;
# skipped elsewhere).  dprof's test_fail_nth=N makes the N-th slab or page
# allocation of its init fail, the same count as /proc/<pid>/fail-nth but
# started at dprof's init: the module loader's own allocations come
# first, their number varies from load to load (KASAN, kmemleak), and the
# kernel handles their failure itself (a failed jump-label allocation
# WARNs by design).  Registrations (tracepoints, kprobes, debugfs) fail
# through their allocations.  A load without a fault says how many points
# init passes and where each of its steps ends; then N takes, in every
# step, its first two points, its last two and two at random between
# them, or every point (for target=all from the end of calibration on:
# the points before it do not depend on the targets, and target=skbuff's
# sweep failed them).  A reader loops on every debugfs file all along.
# Each load must either fail with ENOMEM and
# leave nothing behind (no module, no calibration cache, no kernel report),
# or succeed despite the fault (a fallback absorbed it), work and unload.
# At the end kmemleak must find no new unreferenced object and
# /proc/vmallocinfo must be back to its size.
#
# Every other slab allocation's failure lands on kmemleak's record of the
# one before it (kmemleak allocates one per object); kmemleak then takes
# its record from its emergency pool (mem_pool_alloc()), so those loads
# succeed.  kmemleak tracks vmalloc areas too, so it sees a leak at a
# single point; the vmallocinfo count is a coarser second look.  Small
# rings and live set keep the number of points, and the run, short.
. ./functions.sh
reader=
trap '[ -n "$reader" ] && kill $reader 2>/dev/null; cleanup_modules' EXIT
ENOMEM=12
FI=/sys/kernel/debug

[ -d "$FI/failslab" ] && [ -d "$FI/fail_page_alloc" ] ||
	skip "no fault injection in this kernel (FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS): run make check-debug"

for f in failslab fail_page_alloc; do
	echo 0 >"$FI/$f/probability"
	echo N >"$FI/$f/ignore-gfp-wait"
	echo 0 >"$FI/$f/verbose"
done
echo 0 >"$FI/fail_page_alloc/min-order"
echo N >"$FI/fail_page_alloc/ignore-gfp-highmem"
KMEMLEAK=$FI/kmemleak
# Older unreferenced objects are the kernel's: report only new ones.
if [ -f "$KMEMLEAK" ]; then
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
fi
vmalloc_before=$(wc -l </proc/vmallocinfo)

# The sweep's reach: "steps" (the default) fails, in every step of init
# (dprof logs where each ends: main.c), its first two points, its last two
# and two drawn at random between them; "every" fails every point, which
# took 57 minutes at 1,133 points and takes longer as init grows (boot
# with DPROF_APPEND=dprof_sweep=every: make check-debug TESTS=...).
MODE=$(sed -n 's/.*dprof_sweep=\([a-z]*\).*/\1/p' /proc/cmdline)
MODE=${MODE:-steps}
case $MODE in
steps|every) ;;
*) fail "dprof_sweep=$MODE: must be steps or every" ;;
esac

# unload_read NAME: rmmod while the reader below may hold a file open: an
# open debugfs file holds a reference on the module, and rmmod fails with
# EAGAIN until the reader closes it (a few milliseconds).
unload_read() {
	local i=0
	while ! rmmod "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le 200 ] || fail "unloading $1 failed for 10 s with the reader running"
		usleep 50000
	done
	[ ! -d "/sys/module/$1" ] || fail "$1 still present after rmmod"
}

injected=0 absorbed=0 errs="" reached=1
# point LABEL N PARAMS...: one load with its N-th point failed.  Sets
# $reached to 0 when the load ended before point N (then it must have
# worked; it is unloaded).
point() {
	local label=$1 n=$2 out rc said
	shift 2
	log_canary
	# A load stuck for 5 minutes leaves the blocked tasks' stacks and
	# every CPU's backtrace in the log (it hung once, in the bulk
	# kretprobe's failures, with nothing to tell why).
	(sleep 300 && echo "point $n: load still running after 300 s" &&
		echo w >/proc/sysrq-trigger && echo l >/proc/sysrq-trigger) &
	watchdog=$!
	out=$(modload "$MODDIR/dprof.ko" "$@" test_fail_nth=$n)
	rc=$?
	kill "$watchdog" 2>/dev/null
	said=$(dmesg_since_canary | grep -o "test_fail_nth=$n: .*")
	case "$said" in
	*": injected"*) reached=1 ;;
	*": not reached"*)
		reached=0
		[ "$rc" -eq 0 ] || fail "$label: the load without a fault failed: $out"
		grep -q "^target" "$DPROF_DIR/status" ||
			fail "$label: loaded without a fault, but status says nothing"
		unload_read dprof
		return 0
		;;
	*) fail "$label: point $n: no word from test_fail_nth ($out)" ;;
	esac
	if [ "$rc" -eq 0 ]; then
		# A fallback absorbed the fault: the module must work.
		absorbed=$((absorbed + 1))
		grep -q "^target" "$DPROF_DIR/status" ||
			fail "$label: loaded with point $n failed, but status says nothing"
		unload_read dprof
	else
		injected=$((injected + 1))
		[ "$rc" -eq "$ENOMEM" ] || errs="$errs $n:$rc"
		[ ! -d /sys/module/dprof ] ||
			fail "$label: point $n: the load failed but dprof is loaded"
	fi
	grep -q "^dprof_calib" /proc/slabinfo &&
		fail "$label: point $n: a calibration cache was left behind"
	dmesg_since_canary | grep -E "BUG:|WARNING:|Oops|general protection" &&
		fail "$label: point $n: the kernel reported a problem (above)"
	return 0
}

# plan FIRST: the points a "steps" sweep fails, from a load without a
# fault (its log, since the canary, names where each step ends).
plan() {
	dmesg_since_canary | sed -n 's/.*test_fail_nth=[0-9]*: \(.*\) passed \([0-9]*\) points.*/\2 \1/p;
		s/.*test_fail_nth=[0-9]*: not reached, init passed \([0-9]*\) points.*/\1 debugfs/p' |
	awk -v first="$1" -v seed="$(date +%s)" 'BEGIN { srand(seed); prev = 0 }
		{
			lo = prev + 1; hi = $1; prev = $1
			if (lo < first) lo = first
			if (hi < lo) next
			print lo; print lo + 1; print hi - 1; print hi
			print lo + int(rand() * (hi - lo + 1))
			print lo + int(rand() * (hi - lo + 1))
		}' | awk -v first="$1" '$1 >= first' | sort -n -u
}

# sweep LABEL FIRST PARAMS...: fail points of dprof's init in turn, from
# point FIRST on
sweep() {
	local label=$1 first=$2 n t0 points total missed=0 tried=0
	shift 2
	t0=$(date +%s)
	injected=0 absorbed=0 errs=""
	# The load without a fault first: where each step ends.
	point "$label" 1000000 "$@"
	[ "$reached" -eq 0 ] || fail "$label: point 1000000 was reached"
	total=$(dmesg_since_canary | sed -n 's/.*test_fail_nth=1000000: not reached, init passed \([0-9]*\) points.*/\1/p' | tail -n 1)
	calibration=$(dmesg_since_canary | sed -n 's/.*test_fail_nth=1000000: calibration passed \([0-9]*\) points.*/\1/p' | tail -n 1)
	[ -n "$total" ] || fail "$label: dprof did not say how many points its init passed"
	echo "$label: init passes $total allocation points; where its steps end:"
	dmesg_since_canary | grep -v "not reached" |
		sed -n 's/.*test_fail_nth=1000000: \(.*\) passed \([0-9]*\) points.*/  \2 \1/p'
	if [ "$MODE" = every ]; then
		points=$(seq "$first" "$total")
	else
		points=$(plan "$first")
	fi
	for n in $points; do
		point "$label" "$n" "$@"
		tried=$((tried + 1))
		# The count can differ a little from load to load (target=all:
		# caches created meanwhile); a point past the end is no fault.
		[ "$reached" -eq 1 ] || missed=$((missed + 1))
		[ $((tried % 50)) -ne 0 ] ||
			echo "$label: $tried points after $(($(date +%s) - t0)) s" |
			tee /dev/console
	done
	[ -z "$errs" ] ||
		fail "$label: loads failed with other errors than ENOMEM (point:errno):$errs"
	[ "$tried" -gt 0 ] || fail "$label: no point to fail"
	[ "$missed" -lt "$tried" ] || fail "$label: no point was reached"
	echo "$label ($MODE): $tried of points $first..$total failed once each: $injected loads failed with ENOMEM, $absorbed succeeded despite the fault, $missed past the end of a shorter init ($(($(date +%s) - t0)) s; the first ${calibration:-?} points are calibration's)"
	[ "$MODE" = every ] || echo "  points: $(echo $points)"
}

# A reader on every file all along: no load may publish a file before
# what it reads is set up, or leave one after a failure freed it.
(
	while :; do
		[ -d "$DPROF_DIR" ] || usleep 20000
		for f in "$DPROF_DIR"/*; do
			[ -r "$f" ] && cat "$f" >/dev/null 2>&1
		done
	done
) &
reader=$!
calibration=
sweep "target=skbuff" 1 target=skbuff ring_kb=64 max_objects=1024
# The points up to the end of calibration do not depend on the targets
# (dprof logs how many there were): target=all's sweep starts after them.
[ -n "$calibration" ] || fail "dprof did not say where calibration ended"
# target=all at its defaults (the operand sampler, no hook where a guest
# has no IBS or PEBS), then with the watch sampler and its hooks.
sweep "target=all" $((calibration + 1)) target=all ring_kb=64
sweep "target=all sampler=watch" $((calibration + 1)) target=all sampler=watch ring_kb=64 max_objects=4096
kill "$reader"
reader=
# kmemleak reports objects unreferenced for 5 s and more.
sleep 6
new="none in this kernel"
if [ -f "$KMEMLEAK" ]; then
	echo scan >"$KMEMLEAK"
	new=$(grep -c "^unreferenced object" "$KMEMLEAK")
	if [ "$new" -gt 0 ]; then
		head -n 60 "$KMEMLEAK"
		fail "kmemleak: $new unreferenced objects after the sweeps"
	fi
fi
vmalloc_after=$(wc -l </proc/vmallocinfo)
# A little slack for the kernel's own (cached thread stacks): this
# catches a leak repeated over many points, kmemleak a single one.
[ "$vmalloc_after" -le $((vmalloc_before + 8)) ] ||
	fail "vmalloc areas: $vmalloc_before before the sweeps, $vmalloc_after after"
echo "ok: no leak (kmemleak, new unreferenced objects: $new; vmalloc areas $vmalloc_before -> $vmalloc_after)"
exit 0
