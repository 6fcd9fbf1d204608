#!/bin/sh
# Two merged caches destroyed at the same time (issue "Review", point 1).
# dprof_caches creates dprof_alias_a (3000 bytes: no other cache is within
# a word of that size, so it is a cache of its own) and then dprof_alias_b
# of the same size, which SLUB merges into it: one struct kmem_cache with
# two references.  dprof_caches holds each kmem_cache_destroy() of it at
# its entry until both are there, so both are in flight at once.  dprof
# profiles dprof_alias_a with histories on (the collector opens gates on
# it), then two threads released together destroy both names.
# kmem_cache_destroy() passes the same pointer twice; the first call to
# return only dropped a reference and the cache is still listed, but the
# second frees it.  On d6fbee6 the first return brought the target back
# to life (one DEAD bit for both) and the second only removed its index
# entry, so the target stayed "alive" on a freed cache.
# Expected, every round: the target marked DESTROYED, no slab error; at
# the end every debug register back.
. ./functions.sh
trap cleanup_modules EXIT
log_canary
CACHES_DIR=/sys/kernel/debug/dprof_caches

load_mod dprof_caches
for round in 1 2 3 4 5; do
	echo "alias 3000" >"$CACHES_DIR/ctl" || fail "cannot create the aliases"
	a=$(readlink -f /sys/kernel/slab/dprof_alias_a)
	b=$(readlink -f /sys/kernel/slab/dprof_alias_b)
	if [ "$a" != "$b" ]; then
		grep -qw slab_merge /proc/cmdline &&
			fail "booted with slab_merge, yet dprof_alias_b was not merged into dprof_alias_a"
		skip "dprof_alias_b was not merged (booted with slab_nomerge; make check runs this test again with slab_merge)"
	fi
	load_mod dprof target=dprof_alias_a history_wait_ms=10 sample_window_ms=5
	# Let the collector take a few turns on the target.
	sleep 0.3
	echo unalias >"$CACHES_DIR/ctl" || fail "cannot destroy the aliases"
	line=$(grep "^  \[0\]" "$DPROF_DIR/status")
	echo "round $round: $line"
	case "$line" in
	*DESTROYED*) ;;
	*) fail "round $round: both names destroyed, the cache freed, and its target not marked destroyed" ;;
	esac
	unload_mod dprof
done
meet=$(awk '{ print $8 }' "$CACHES_DIR/stats")
[ "$meet" = 0 ] || fail "$meet of 5 rounds' destroys did not overlap: the test proved nothing there"
unload_mod dprof_caches
# "KASAN:" is a report; dprof's own note on the quarantine says "KASAN's".
dmesg_since_canary | grep -E "Objects remaining|BUG|WARNING|general protection|KASAN:" &&
	fail "the kernel reported an error"
echo "ok: 5 rounds of two merged names destroyed at once, the target died every time"
exit 0
