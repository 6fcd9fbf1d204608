#!/bin/sh
# dprof_resolve() maps every interior address of a live target object to
# (object, offset) and nothing else, called from hard-IRQ context (IPI).
# Per check the workload probes 32 held objects at 7 offsets plus 1
# metadata address each, and 7 addresses that must not resolve (freed
# object and its interior, kmalloc object, stack, module data, NULL, top
# of the address space): 32 * 8 + 7 = 263 expectations.  Then the same
# with slub_debug red zones on the cache, objects from before the load
# included.
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof_workload
echo "resolve 0" >"$WL_DIR/ctl" 2>/dev/null && fail "resolve without dprof should fail"
load_mod dprof target=dprof_workload track_one_in=1
wl "alloc 40 0"
for cpu in 0 1; do
	wl "resolve $cpu"
	expect_eq "resolve failures (cpu $cpu)" "$(wl_stat resolve_failed)" 0
	expect_eq "resolve checks (cpu $cpu)" "$(wl_stat resolve_ok)" 263
done
wl "free 40 1"
wl "resolve 1"
expect_eq "checks with no live objects" "$(wl_stat resolve_ok)" 7
expect_eq "failures with no live objects" "$(wl_stat resolve_failed)" 0
unload_mod dprof
unload_mod dprof_workload

# slub_debug red zones: the workload's cache made with SLAB_RED_ZONE.  SLUB
# then puts every object red_left_pad bytes past its slot on the stride
# grid, and mm/slub.c calculate_sizes() makes red_left_pad
# ALIGN(sizeof(void *), align), i.e. the cache's align (sysfs) but at
# least 8.  Objects allocated before dprof loads must be found by the scan
# at those shifted addresses (the 32 oldest are in full slabs: a debug
# cache fills one slab before it takes the next; KFENCE's objects are left
# out: they are in KFENCE's pool, off any grid), objects allocated after
# it are on the grid (off_grid counts KFENCE's only), and every check above holds with one
# more per object: the byte before it, in its left red zone, resolves to
# nothing.  Before dprof knew red_left_pad every interior address resolved
# to the wrong base.
load_mod dprof_workload red_zone=1
slab=/sys/kernel/slab/dprof_workload
if [ "$(cat $slab/red_zone 2>/dev/null)" != 1 ]; then
	echo "kernel without SLUB debugging ($slab/red_zone is not 1): red zones not tested"
	unload_mod dprof_workload
	exit 0
fi
pad=$(cat $slab/align)
[ "$pad" -ge 8 ] || pad=8
wl "alloc 100 0"
load_mod dprof target=dprof_workload track_one_in=1
grep -q "^  kmem_cache.red_left_pad .*(calibrated)" "$DPROF_DIR/status" ||
	fail "red_left_pad not calibrated: $(grep red_left_pad $DPROF_DIR/status)"
grep -q "\] dprof_workload object_size=320 stride=[0-9]* red_zone=$pad\( \|$\)" \
	"$DPROF_DIR/status" ||
	fail "status does not show red_zone=$pad: $(grep '\] dprof_workload' $DPROF_DIR/status)"
kfence_before=$(wl_stat kfence_allocs)
if scan_off_by_quarantine; then
	echo "note: older red-zoned objects not checked: $(grep '^scan:' $DPROF_DIR/status)"
else
	loop_until 'grep -q "^scan: done" $DPROF_DIR/status' ||
		fail "the scan did not finish"
	older=$(sed -n 's/.*older objects: \([0-9]*\) established.*/\1/p' \
		"$DPROF_DIR/status")
	irregular=$(sed -n 's/.* \([0-9]*\) irregular;.*/\1/p' "$DPROF_DIR/status")
	echo "red zone $pad bytes: scan established $older of 100 older objects, $irregular irregular slabs (KFENCE's), $(wl_stat kfence_allocs) KFENCE objects"
	[ "$older" -ge 32 ] || fail "the scan established $older older objects, expected at least 32"
	wl "resolve 0"
	grep resolve_first_failure "$WL_DIR/stats"
	expect_eq "resolve failures, older red-zoned objects" "$(wl_stat resolve_failed)" 0
	expect_eq "resolve checks, older red-zoned objects" "$(wl_stat resolve_ok)" $((263 + 32))
fi
wl "alloc 40 1"
wl "free 100 0"
wl "resolve 1"
grep resolve_first_failure "$WL_DIR/stats"
expect_eq "resolve failures, red-zoned objects" "$(wl_stat resolve_failed)" 0
expect_eq "resolve checks, red-zoned objects" "$(wl_stat resolve_ok)" $((263 + 32))
# Off the grid: only what KFENCE served (its pool is not a slab grid).
off_grid=$(awk '$1 == "all" { print $6 }' "$DPROF_DIR/status")
expect_eq "allocations off the grid (KFENCE's only)" "$off_grid" \
	$(($(wl_stat kfence_allocs) - kfence_before))
unload_mod dprof
unload_mod dprof_workload
exit 0
