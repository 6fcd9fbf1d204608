#!/bin/sh
# A target lives exactly as long as its cache (issue "Review", points 2
# and 3).  dprof_caches creates and destroys caches the ways that once
# left dprof profiling a freed struct kmem_cache:
#
# 1. A storm of destroys.  64 caches (SLAB_TYPESAFE_BY_RCU: never merged)
#    adopted by target=all, then destroyed by 64 threads released
#    together.  kmem_cache_destroy() sleeps on slab_mutex, so all 64 are in
#    flight at once; the kretprobe that followed them had 16 instances and
#    missed the rest (on d6fbee6, 22 of 40 targets never died while their
#    caches were gone from /proc/slabinfo).  Expected: every storm target
#    is marked dead (DPROF_TARGET_DEAD, flag 2 in "targets").
# 2. Rescans racing destroys.  target=all walks slab_caches without
#    slab_mutex (not exported); with a rescan every 2 ms, 3000 caches are
#    created and destroyed one after the other.  A cache read by a walk
#    and destroyed before the walk published it was adopted after its
#    struct was freed.  Expected: every dprof_churn_* target is dead, and
#    dprof_keeper, created afterwards with the churn caches' size (so
#    likely where one of them was), is a live target of its own.
. ./functions.sh
trap cleanup_modules EXIT
log_canary
CACHES_DIR=/sys/kernel/debug/dprof_caches

cc() {
	echo "$*" >"$CACHES_DIR/ctl" || fail "dprof_caches command '$*' failed"
}

# targets_named PREFIX: "name flags" of every target whose name starts so
targets_named() {
	awk -v p="$1" 'substr($2, 1, length(p)) == p { print $2, $5 }' \
		"$DPROF_DIR/targets"
}

# alive PREFIX: how many such targets are not marked dead
alive() {
	targets_named "$1" | awk '{ if (int($2 / 2) % 2 == 0) n++ } END { print n + 0 }'
}

load_mod dprof_caches
load_mod dprof target=all sampler=off test_rescan_ms=2

# 1. the storm
n=64
cc "storm $n"
loop_until '[ "$(targets_named dprof_storm_ | wc -l)" -eq $n ]' ||
	fail "target=all adopted $(targets_named dprof_storm_ | wc -l) of the $n storm caches"
[ "$(alive dprof_storm_)" -eq "$n" ] ||
	fail "storm targets dead before their destroy: $(targets_named dprof_storm_ | head -n 3)"
cc destroy
left=$(awk '$1 ~ /^dprof_storm_/' /proc/slabinfo | wc -l)
[ "$left" -eq 0 ] || fail "$left storm caches still in /proc/slabinfo"
# SLAB_TYPESAFE_BY_RCU caches are freed after an RCU barrier: the return
# probe buries them first, the free of their struct would anyway.
loop_until '[ "$(alive dprof_storm_)" -eq 0 ]' ||
	fail "$(alive dprof_storm_) of $n destroyed storm caches still profiled as live targets: $(grep -i 'destroy' $DPROF_DIR/status)"
echo "storm: $n caches destroyed at once, all $n targets dead"
grep -q "not followed at entry" "$DPROF_DIR/status" &&
	fail "destroys not followed: $(grep 'not followed' $DPROF_DIR/status)"

# 2. rescans racing destroys
cc "churn 3000"
churned=$(targets_named dprof_churn_ | wc -l)
left=$(alive dprof_churn_)
echo "churn: 3000 caches created and destroyed, $churned adopted by a rescan while they lived, $left of them live targets"
grep "rescans" "$DPROF_DIR/status"
[ "$left" -eq 0 ] ||
	fail "$left destroyed churn caches are live targets: $(targets_named dprof_churn_ | awk 'int($2 / 2) % 2 == 0' | head -n 3)"
cc keep
loop_until '[ "$(alive dprof_keeper)" -eq 1 ]' ||
	fail "dprof_keeper, created after the churn, is not a live target: $(targets_named dprof_keeper)"
echo "keeper: a live target of its own"

unload_mod dprof
unload_mod dprof_caches
# "KASAN:" is a report; dprof's own note on the quarantine says "KASAN's".
dmesg_since_canary | grep -E "Objects remaining|BUG|WARNING|general protection|KASAN:" &&
	fail "the kernel reported an error"
echo "ok: every destroyed cache's target died, and no live one did"
exit 0
