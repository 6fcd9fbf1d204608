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
echo "ok: ring_kb=1, max_objects=1, misaligned offset -> EINVAL"

# Overrides with the calibrated values load; a wrong one makes lookup fail.
load_mod dprof target=skbuff
set -- $(awk '/offset/ { print $3 }' "$DPROF_DIR/status")
unload_mod dprof
load_mod dprof target=skbuff slab_cache_offset=$1 cache_size_offset=$2 cache_name_offset=$3 cache_list_offset=$4
grep -q "slab.slab_cache .*(parameter)" "$DPROF_DIR/status" || fail "override not shown"
unload_mod dprof
echo "ok: offsets given as parameters are used and shown"

load_mod dprof target=skbuff,size-1024,tcp
names=$(grep -v '^#' "$DPROF_DIR/targets" | awk '{ printf "%s ", $2 }')
expect_eq "aliases" "$names" "skbuff_head_cache kmalloc-1k TCP "
unload_mod dprof
exit 0
