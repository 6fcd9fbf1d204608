#!/bin/sh
# Every allocation of dprof's init fails in turn, and each failure is clean.
#
# For the debug kernel of make check-debug (fault injection built in;
# skipped elsewhere).  dprof's test_fail_nth=N makes the N-th slab or page
# allocation of its init fail, the same count as /proc/<pid>/fail-nth but
# started at dprof's init: the module loader's own allocations come
# first, their number varies from load to load (KASAN, kmemleak), and the
# kernel handles their failure itself (a failed jump-label allocation
# WARNs by design).  Registrations (tracepoints, kprobes, debugfs) fail
# through their allocations.  N runs from 1 until the kernel log says the
# N-th point was not reached (for target=all from the end of calibration
# on: the points before it do not depend on the targets, and
# target=skbuff's sweep failed each of them).  Each load must either fail with ENOMEM and
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
trap cleanup_modules EXIT
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

# sweep LABEL FIRST PARAMS...: fail each point of dprof's init in turn,
# from point FIRST on
sweep() {
	local label=$1 n=$2 first=$2 out rc said injected=0 absorbed=0 errs="" t0
	shift 2
	t0=$(date +%s)
	while [ "$n" -le 5000 ]; do
		log_canary
		# A load stuck for 5 minutes leaves the blocked tasks' stacks
		# and every CPU's backtrace in the log (it hung once, in the
		# bulk kretprobe's failures, with nothing to tell why).
		(sleep 300 && echo "point $n: load still running after 300 s" &&
			echo w >/proc/sysrq-trigger && echo l >/proc/sysrq-trigger) &
		watchdog=$!
		out=$(modload "$MODDIR/dprof.ko" "$@" test_fail_nth=$n)
		rc=$?
		kill "$watchdog" 2>/dev/null
		said=$(dmesg_since_canary | grep -o "test_fail_nth=$n: .*")
		case "$said" in
		*": injected"*) ;;
		*": not reached"*)
			[ "$rc" -eq 0 ] || fail "$label: the load without a fault failed: $out"
			unload_mod dprof
			[ -z "$errs" ] ||
				fail "$label: loads failed with other errors than ENOMEM (point:errno):$errs"
			calibration=$(dmesg_since_canary | sed -n "s/.*test_fail_nth=$n: calibration passed \([0-9]*\) points.*/\1/p" | tail -n 1)
			echo "$label: points $first..$((n - 1)), each failed once: $injected loads failed with ENOMEM, $absorbed succeeded despite the fault ($(($(date +%s) - t0)) s; the first ${calibration:-?} points are calibration's)"
			return 0
			;;
		*) fail "$label: point $n: no word from test_fail_nth ($out)" ;;
		esac
		if [ "$rc" -eq 0 ]; then
			# A fallback absorbed the fault: the module must work.
			absorbed=$((absorbed + 1))
			grep -q "^target" "$DPROF_DIR/status" ||
				fail "$label: loaded with point $n failed, but status says nothing"
			unload_mod dprof
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
		# Also on the console: a run stopped by its time limit still
		# shows how far it got.
		[ $((n % 50)) -ne 0 ] ||
			echo "$label: point $n after $(($(date +%s) - t0)) s" |
			tee /dev/console
		n=$((n + 1))
	done
	fail "$label: more than 5000 allocation points: the sweep did not end"
}

calibration=
sweep "target=skbuff" 1 target=skbuff ring_kb=64 max_objects=1024
# The points up to the end of calibration do not depend on the targets
# (dprof logs how many there were): target=all's sweep starts after them.
[ -n "$calibration" ] || fail "dprof did not say where calibration ended"
sweep "target=all" $((calibration + 1)) target=all ring_kb=64 max_objects=4096
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
