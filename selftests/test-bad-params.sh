#!/bin/sh
# Bad parameters fail the load with the right errno and a one-line message
# that names the problem; aliases resolve to the real cache names.
. ./functions.sh
trap cleanup_modules EXIT
ENOENT=2 EINVAL=22

log_canary
expect_load_error $ENOENT dprof target=no_such_cache
dmesg_since_canary | grep -q "unknown slab cache 'no_such_cache'.*/proc/slabinfo" ||
	fail "no message naming the unknown cache"
echo "ok: unknown cache -> ENOENT with a message"

log_canary
expect_load_error $EINVAL dprof
dmesg_since_canary | grep -q "no target given" || fail "no message for a missing target"
echo "ok: missing target -> EINVAL"

expect_load_error $EINVAL dprof target=skbuff,,UDP
expect_load_error $EINVAL dprof target=skbuff,skbuff_head_cache
log_canary
expect_load_error $EINVAL dprof target=skbuff,UDP,TCP,kmalloc-64,kmalloc-128,kmalloc-256,kmalloc-512,kmalloc-1k,kmalloc-2k
dmesg_since_canary | grep -q "too many caches" || fail "no message for too many targets"
echo "ok: empty name, duplicate and 9 targets -> EINVAL"

expect_load_error $EINVAL dprof target=skbuff ring_kb=1
expect_load_error $EINVAL dprof target=skbuff max_objects=1
expect_load_error $EINVAL dprof target=skbuff slab_cache_offset=3
# struct slab is one struct page (64 bytes), read from NMI: no word past it.
log_canary
expect_load_error $EINVAL dprof target=skbuff slab_cache_offset=64
dmesg_since_canary | grep -q "slab_cache_offset=64: must be -1 (calibrate) or a multiple of 8 up to 56" ||
	fail "no message for an offset past struct slab"
expect_load_error $EINVAL dprof target=skbuff cache_list_offset=504
echo "ok: ring_kb=1, max_objects=1, misaligned offset, offsets past the struct -> EINVAL"

log_canary
expect_load_error $EINVAL dprof target=skbuff history_cpus=banana
expect_load_error $EINVAL dprof target=skbuff history_cpus=4000
dmesg_since_canary | grep -q "history_cpus=banana: not a list of this machine's CPUs" ||
	fail "no message for a bad history_cpus"
echo "ok: history_cpus not a cpulist, or no CPU of this machine -> EINVAL"

log_canary
expect_load_error $EINVAL dprof target=skbuff callchain=33
dmesg_since_canary | grep -q "callchain=33: at most 32 frames" ||
	fail "no message for a callchain over DPROF_CHAIN_MAX"
echo "ok: callchain over 32 frames -> EINVAL"

log_canary
expect_load_error $ENOENT dprof target=skbuff ops=tcp_sendmsg,no_such_function_dprof
dmesg_since_canary | grep -q "ops=no_such_function_dprof: cannot probe it (-2)" ||
	fail "no message naming the function ops= cannot probe"
echo "ok: ops= naming no kernel function -> ENOENT, the probes already in taken out"

log_canary
expect_load_error $EINVAL dprof target=skbuff ops=tcp_sendmsg,tcp_sendmsg
dmesg_since_canary | grep -q "ops=: tcp_sendmsg named twice" ||
	fail "no message for a function named twice in ops="
echo "ok: ops= naming a function twice -> EINVAL"

# The init-failure sweep's parameter needs fault injection in the kernel
# (CONFIG_FAULT_INJECTION, which also makes /proc/<pid>/fail-nth).
if [ ! -e /proc/self/fail-nth ]; then
	log_canary
	expect_load_error $EINVAL dprof target=skbuff test_fail_nth=1
	dmesg_since_canary | grep -q "test_fail_nth=1: needs a kernel with CONFIG_FAULT_INJECTION" ||
		fail "no message for test_fail_nth without fault injection"
	echo "ok: test_fail_nth without fault injection -> EINVAL"
fi

# Overrides with the calibrated values load; a wrong one makes lookup fail.
load_mod dprof target=skbuff
set -- $(awk '/offset/ { print $3 }' "$DPROF_DIR/status")
unload_mod dprof
load_mod dprof target=skbuff slab_cache_offset=$1 cache_size_offset=$2 cache_name_offset=$3 cache_list_offset=$4 red_left_pad_offset=$6
grep -q "slab.slab_cache .*(parameter)" "$DPROF_DIR/status" || fail "override not shown"
grep -q "kmem_cache.red_left_pad .*(parameter)" "$DPROF_DIR/status" ||
	fail "red_left_pad override not shown"
unload_mod dprof
echo "ok: offsets given as parameters are used and shown"

# size-N, the thesis's "every kmalloc of N bytes", takes kmalloc-cg-N too
# where memcg kmem accounting made one (Debian's kernels do), and the
# kmem_buckets caches of 1 KiB objects (6.12's msg_msg-1k, memdup_user-1k:
# named PREFIX-1k, a prefix with caches for 4 kmalloc sizes or more), in
# /proc/slabinfo's order, which is the cache list's.
cg=
grep -q '^kmalloc-cg-1k ' /proc/slabinfo && cg="kmalloc-cg-1k "
buckets=$(awk 'NR > 2 { n = $1; p = n; sub(/-[0-9]+k?$/, "", p)
		if (p != n && p !~ /^(dma-)?kmalloc/) { sets[p]++
			if (n ~ /-1k$/ && $4 == 1024) cand[++k] = n } }
	END { for (i = 1; i <= k; i++) { p = cand[i]; sub(/-1k$/, "", p)
		if (sets[p] >= 4) printf "%s ", cand[i] } }' /proc/slabinfo)
load_mod dprof target=skbuff,size-1024,tcp
names=$(grep -v '^#' "$DPROF_DIR/targets" | awk '{ printf "%s ", $2 }')
expect_eq "aliases" "$names" "skbuff_head_cache kmalloc-1k ${cg}${buckets}TCP "
unload_mod dprof
echo "ok: aliases resolve; size-1024 is kmalloc-1k ${cg:+and $cg}${buckets:+and $buckets}"

# Kernel addresses need what perf asks for them: CAP_PERFMON or
# CAP_SYS_ADMIN, checked at open (root without them is refused, though
# the file modes let uid 0 in); version holds none and stays open.
load_mod dprof target=skbuff
EPERM=1
for f in events samples data_samples percpu_offsets plans status profile histories targets; do
	cat "$DPROF_DIR/$f" >/dev/null || fail "root with its capabilities cannot read $f"
	got=$(opencaps "$DPROF_DIR/$f" | awk '{ print $2 }')
	expect_eq "open $f without CAP_PERFMON/CAP_SYS_ADMIN" "$got" "$EPERM"
done
expect_eq "open version without them" \
	"$(opencaps "$DPROF_DIR/version" | awk '{ print $2 }')" "0"
unload_mod dprof
echo "ok: debugfs files refuse root without CAP_PERFMON or CAP_SYS_ADMIN"

# Offsets are 16 bits: a cache of 96 KiB objects is refused by name.
load_mod dprof_sharing
log_canary
expect_load_error $EINVAL dprof target=dprof_large
dmesg_since_canary | grep -q "'dprof_large' has objects of 98304 bytes.*at most 65536" ||
	fail "no message for objects past 64 KiB"
unload_mod dprof_sharing
echo "ok: objects past 64 KiB -> EINVAL with a message"

# GFP_DMA kmallocs come from dma-kmalloc-N: a kmalloc cache like the
# others (flag 1), or its allocations, seen only by the kmalloc
# tracepoint, would be missed and its frees unmatched.
dma=$(awk '/^dma-kmalloc-/ { print $1; exit }' /proc/slabinfo)
if [ -n "$dma" ]; then
	load_mod dprof target="$dma"
	flags=$(awk -v n="$dma" '$2 == n { print $5 }' "$DPROF_DIR/targets")
	[ $(( ${flags:-0} & 1 )) -eq 1 ] || fail "$dma is not flagged kmalloc (flags ${flags:-none})"
	unload_mod dprof
	echo "ok: $dma is profiled as a kmalloc cache"
else
	echo "note: this kernel has no dma-kmalloc cache; not checked"
fi
exit 0
