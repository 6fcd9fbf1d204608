#!/bin/sh
# Every allocation of a load fails in turn, and each failure is clean.
#
# For the debug kernel of make check-debug (fault injection built in;
# skipped elsewhere).  /proc/thread-self/fail-nth makes the N-th slab or
# page allocation of the loading thread fail (failslab, fail_page_alloc,
# GFP_KERNEL included), counting from the finit_module() call: the
# module loader's own allocations first, then dprof's init with its
# registrations (tracepoints, kprobes and debugfs fail through their
# allocations).  N runs from 1 until a load passes no N-th point.  Each
# load must either fail with ENOMEM and leave nothing behind (no module,
# no calibration cache, no kernel report), or succeed despite the fault
# (a fallback absorbed it) and then work and unload.  At the end
# kmemleak must find no new unreferenced object and /proc/vmallocinfo
# must be back to its size, so no failure path leaks.
#
# Two parameter sets: one cache (the defaults: histories and the watch
# sampler) and target=all (every cache, the scan).
. ./functions.sh
trap cleanup_modules EXIT
ENOMEM=12
FI=/sys/kernel/debug

[ -e /proc/thread-self/fail-nth ] && [ -d "$FI/failslab" ] &&
	[ -d "$FI/fail_page_alloc" ] ||
	skip "no fault injection in this kernel (FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS): run make check-debug"

# Faults only where fail-nth says, GFP_KERNEL ones too, and quietly
# (a stack dump per fault would bury the log).
for f in failslab fail_page_alloc; do
	echo 0 >"$FI/$f/probability"
	echo N >"$FI/$f/ignore-gfp-wait"
	echo 0 >"$FI/$f/verbose"
done
echo 0 >"$FI/fail_page_alloc/min-order"
echo N >"$FI/fail_page_alloc/ignore-gfp-highmem"

KMEMLEAK=$FI/kmemleak
leaks() {
	[ -f "$KMEMLEAK" ] || { echo 0; return; }
	echo scan >"$KMEMLEAK"
	grep -c "^unreferenced object" "$KMEMLEAK"
}
# Older unreferenced objects are the kernel's: report only new ones.
if [ -f "$KMEMLEAK" ]; then
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
fi
vmalloc_before=$(wc -l </proc/vmallocinfo)

# sweep LABEL PARAMS...: fail each point of one load in turn
sweep() {
	local label=$1 n=1 out rc injected=0 absorbed=0 errs=""
	shift
	while [ "$n" -le 5000 ]; do
		log_canary
		out=$(modload -f "$n" "$MODDIR/dprof.ko" "$@")
		rc=$?
		case "$out" in
		*"fail-nth $n: injected"*) ;;
		*"fail-nth $n: not reached"*)
			[ "$rc" -eq 0 ] || fail "$label: load without a fault failed: $out"
			unload_mod dprof
			[ -z "$errs" ] ||
				fail "$label: loads failed with other errors than ENOMEM (point:errno):$errs"
			echo "$label: $((n - 1)) allocation points, each failed once: $injected loads failed with ENOMEM, $absorbed succeeded despite the fault"
			return 0
			;;
		*) fail "$label: modload -f $n: $out" ;;
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
		dmesg_since_canary | grep -E "BUG:|WARNING:|Oops|general protection|KASAN|KFENCE" &&
			fail "$label: point $n: the kernel reported a problem (above)"
		n=$((n + 1))
	done
	fail "$label: more than 5000 allocation points: the sweep did not end"
}

sweep "target=skbuff" target=skbuff
sweep "target=all" target=all
# kmemleak reports objects unreferenced for 5 s and more.
sleep 6
new=$(leaks)
if [ "$new" -gt 0 ]; then
	head -n 60 "$KMEMLEAK"
	fail "kmemleak: $new unreferenced objects after the sweeps"
fi
vmalloc_after=$(wc -l </proc/vmallocinfo)
# A little slack for the kernel's own (cached thread stacks); a leak per
# failed load would add hundreds.
[ "$vmalloc_after" -le $((vmalloc_before + 8)) ] ||
	fail "vmalloc areas: $vmalloc_before before the sweeps, $vmalloc_after after"
echo "ok: no leak (kmemleak: $new new; vmalloc areas $vmalloc_before -> $vmalloc_after)"
exit 0
