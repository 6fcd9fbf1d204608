#!/bin/sh
# Destroying a merged alias drops a reference; the cache it was merged
# into runs on, and so must its profile.  dprof_sharing creates
# "dprof_alias" (192 bytes, no constructor), which SLUB merges into a
# compatible cache: /sys/kernel/slab/dprof_alias is then a symlink to that
# cache's directory, and kmem_cache_destroy() of the alias passes the same
# struct kmem_cache.  Expected after the alias's module is unloaded: the
# target not marked destroyed, the alias destroy counted in status, and
# allocations through the cache still recorded.
. ./functions.sh
trap cleanup_modules EXIT
SHARING_DIR=/sys/kernel/debug/dprof_sharing

allocs() {
	awk '$1 == "all" && NF == 7 { print $2 }' "$DPROF_DIR/status"
}

load_mod dprof_sharing
link=/sys/kernel/slab/dprof_alias
if [ ! -L "$link" ]; then
	# make check boots a second time with slab_merge for this test.
	grep -qw slab_merge /proc/cmdline &&
		fail "booted with slab_merge, yet dprof_alias was not merged"
	skip "dprof_alias was not merged (booted with slab_nomerge; make check runs this test again with slab_merge)"
fi
dir=$(readlink -f "$link")
canon=
for c in $(awk 'NR > 2 { print $1 }' /proc/slabinfo); do
	if [ "$(readlink -f "/sys/kernel/slab/$c" 2>/dev/null)" = "$dir" ]; then
		canon=$c
		break
	fi
done
[ -n "$canon" ] || fail "no cache of /proc/slabinfo is $dir"
echo "dprof_alias is merged into $canon"

# track_one_in=1: the 1000 allocations below are counted one by one; the
# default rule raises a cache whose burst passes track_max_rate.
load_mod dprof target="$canon" history=0 track_one_in=1
unload_mod dprof_sharing	# destroys the alias: one reference less
grep "^  \[0\]" "$DPROF_DIR/status"
grep -q "^  \[0\] .*DESTROYED" "$DPROF_DIR/status" &&
	fail "$canon marked destroyed when only its alias dprof_alias was"
grep -q "^  merged aliases destroyed: 1 " "$DPROF_DIR/status" ||
	fail "status does not count the alias destroy: $(grep -i alias "$DPROF_DIR/status")"

# The cache is still profiled: 1000 allocations through it are recorded
# (a reload merges the new alias into the same cache).
load_mod dprof_sharing
[ "$(readlink -f "$link")" = "$dir" ] || skip "the reloaded alias merged elsewhere"
before=$(allocs)
echo "alias 1000" >"$SHARING_DIR/ctl" || fail "alias allocations failed"
after=$(allocs)
echo "allocations recorded in $canon: $before before, $after after 1000 through the alias"
[ $((after - before)) -ge 1000 ] || fail "$canon is no longer profiled after the alias's destroy"
unload_mod dprof_sharing
unload_mod dprof
echo "ok: $canon profiled across the destroy of its merged alias"
exit 0
