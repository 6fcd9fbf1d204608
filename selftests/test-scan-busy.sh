#!/bin/sh
# insmod and rmmod do not wait for the scan of older objects.
#
# The scan (scan.c) walks every page frame once, in a kthread of its own,
# and enters the objects of full target slabs in batches, each confirmed
# after an RCU grace period.  On a host with a lot of memory and a busy
# target cache the walk takes seconds to minutes; a load that waited for
# it would hold systemd-modules-load past its timeout, an unload too.
# Here: objects of dprof_workload held in full slabs over 40 % of memory
# (older than dprof: some 7 million in make check's 6 GiB guest, each
# batch of 256 slabs a grace period) and 512 MiB of page cache.  insmod
# must return within 2 s while status still says "scan: running", and
# rmmod, given while the scan still runs, within 2 s.  Needs a guest of
# 3 GiB or more (make check boots one with 6 GiB); skips otherwise.
. ./functions.sh
trap 'rm -f "$TMP/fill"; cleanup_modules' EXIT
mem_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
[ "$mem_kb" -ge 3000000 ] ||
	skip "needs a guest of 3 GiB or more, this one has $((mem_kb / 1024)) MiB (make check boots one)"
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

load_mod dprof_workload
# 40 % of memory in objects, half allocated on each CPU.
per_cpu=$((mem_kb * 1024 / 10 * 4 / $(wl_stat object_size) / 2))
wl alloc "$per_cpu" 0
wl alloc "$per_cpu" 1
dd if=/dev/zero of="$TMP/fill" bs=1M count=512 2>/dev/null ||
	fail "cannot fill 512 MiB of page cache"
grep -E "^(MemFree|Cached|Slab):" /proc/meminfo

t0=$(now_ms)
load_mod dprof target=dprof_workload
t1=$(now_ms)
grep "^scan:" $DPROF_DIR/status
echo "insmod took $((t1 - t0)) ms"
[ $((t1 - t0)) -le 2000 ] || fail "insmod took $((t1 - t0)) ms (at most 2000 while the scan runs)"
grep -q "^scan: running" $DPROF_DIR/status ||
	fail "the scan was done when insmod returned: too little to scan for this test"

sleep 1
grep -q "^scan: running" $DPROF_DIR/status ||
	fail "the scan ended within a second of the load: too little to scan for this test"
grep "^scan:" $DPROF_DIR/status
t2=$(now_ms)
unload_mod dprof
t3=$(now_ms)
echo "rmmod during the scan took $((t3 - t2)) ms"
[ $((t3 - t2)) -le 2000 ] || fail "rmmod took $((t3 - t2)) ms (at most 2000 while the scan runs)"
wl reset
unload_mod dprof_workload
