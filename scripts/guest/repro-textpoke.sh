#!/bin/sh
# Guest script: toggles the four kmem tracepoints through tracefs while a
# stress kthread allocates and frees on CPU 1, without dprof; each toggle
# patches kmem_cache_alloc/free with text_poke_bp().  QEMU 7.2's
# multi-threaded TCG oopsed Debian 6.12 here ("Oops: int3" at
# kmem_cache_alloc_noprof+0x129 or kmem_cache_free+0xaf, a stale int3
# after its descriptor was dropped) within ~30 toggles in 6 of 6 runs;
# QEMU 10, which install-deps.sh installs, passed 60 toggles in 2 of 2
# (2026-11-22).  Kept to check a new QEMU before trusting it:
#
#   scripts/vm.sh -k 6.12 scripts/repro-textpoke.sh 60
#
cd /selftests || exit 1
. ./functions.sh
toggles=${1:-60}
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
events=/sys/kernel/tracing/events/kmem
load_mod dprof_workload
wl "stress 1"
i=0
while [ "$i" -lt "$toggles" ]; do
	for e in kmem_cache_alloc kmem_cache_free kmalloc kfree; do
		echo 1 >"$events/$e/enable"
	done
	wl "churn 2000 0"
	for e in kmem_cache_alloc kmem_cache_free kmalloc kfree; do
		echo 0 >"$events/$e/enable"
	done
	i=$((i + 1))
done
wl stop
unload_mod dprof_workload
echo "$toggles tracepoint toggles under allocation load, no oops"
