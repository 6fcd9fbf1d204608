#!/bin/sh
# kmalloc() of one size on a kernel with CONFIG_SLAB_BUCKETS (Debian's
# 6.12) goes to more caches than kmalloc-N and kmalloc-cg-N: each user of
# kmem_buckets_create() (msg_msg, memdup_user) has its own cache per size,
# named "<prefix>-<size>".  target=size-N must profile them too, and
# target=kmalloc-N must say what it leaves out (issue "Review", point 4).
# Ground truth: dprof_caches creates its own bucket set, dprof_bkt, and
# allocates N objects of 50 bytes with kmem_buckets_alloc(): they come
# from dprof_bkt-64, which nothing else uses, so the recording must hold
# exactly N allocations and N frees there.
. ./functions.sh
trap cleanup_modules EXIT
n=2000

load_mod dprof_caches
ctl=/sys/kernel/debug/dprof_caches/ctl
if ! echo buckets >$ctl 2>/dev/null; then
	skip "this kernel has no CONFIG_SLAB_BUCKETS (kmem_buckets_create() makes no caches): kmalloc() of a size uses kmalloc-N and kmalloc-cg-N only, which test-counts covers"
fi
grep -q "^dprof_bkt-64 " /proc/slabinfo || fail "no dprof_bkt-64 cache after kmem_buckets_create()"

# target=kmalloc-N alone: the log and status name the siblings it
# misses, for each such target.
load_mod dprof target=kmalloc-64,kmalloc-1k sampler=off history=0
grep "not profiled" $DPROF_DIR/status
for c in dprof_bkt-64 dprof_bkt-1k; do
	grep "not profiled" $DPROF_DIR/status | grep -q "$c" ||
		fail "target=kmalloc-64,kmalloc-1k does not say that $c is left out"
done
unload_mod dprof

# target=size-64: every cache of that size, the bucket caches included.
load_mod dprof target=size-64 sampler=off history=0 track_one_in=1
cat $DPROF_DIR/targets
grep -q " dprof_bkt-64 " $DPROF_DIR/targets || fail "target=size-64 did not take dprof_bkt-64"
grep -q " kmalloc-64 " $DPROF_DIR/targets || fail "target=size-64 lost kmalloc-64"
out=$TMP/buckets.dprof
dprof-view record -o "$out" -- sh -c "echo 'bucket_alloc $n 50' >$ctl" ||
	fail "recording the bucket allocations failed"
unload_mod dprof
counts=$(dprof-view objects --script "$out" |
	awk '$2 == "dprof_bkt-64" { if ($1 == "alloc") a++; else f++ }
	END { print a + 0, f + 0 }')
expect_eq "allocations and frees recorded in dprof_bkt-64" "$counts" "$n $n"
unload_mod dprof_caches
exit 0
