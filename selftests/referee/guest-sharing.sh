#!/bin/sh
# In the guest, under the referee (scripts/check-referee.sh): dprof_sharing's
# two workloads whose every access is known in advance (see the table in
# selftests/modules/dprof_sharing.c), in lockstep so that A's and B's
# iterations alternate, measured between two sync(1) calls (the referee's
# trigger).  dprof.ko is not loaded: the referee owes it nothing.
# Writes the module's stats (field offsets, rounds) to /host.
cd /selftests && . ./functions.sh
trap cleanup_modules EXIT
ROUNDS=${ROUNDS:-20}
ITERS=${ITERS:-200}
load_mod dprof_sharing
ctl=/sys/kernel/debug/dprof_sharing/ctl
sync
echo "run $ROUNDS $ITERS 0 1 0 1" >$ctl || fail "run failed"
echo "atomics $ROUNDS $ITERS 0 1" >$ctl || fail "atomics failed"
sync
cat /sys/kernel/debug/dprof_sharing/stats >/host/sharing-stats
echo "rounds $ROUNDS iters $ITERS" >>/host/sharing-stats
unload_mod dprof_sharing
exit 0
