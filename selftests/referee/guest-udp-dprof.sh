#!/bin/sh
# In the guest, under the referee (scripts/check-referee.sh): the same UDP
# datagrams as guest-udp.sh, now with dprof.ko loaded (target=skbuff, its
# defaults) and recording, so that dprof-view referee judges the
# recording by the referee's table of the very same run.  The referee
# leaves out the accesses of module text (exclude=, every module: the
# workload runs in the kernel proper), so dprof's own are not counted.
cd /selftests && . ./functions.sh
trap cleanup_modules EXIT
# Datagrams: the first argument (check-referee.sh -n), 10,000 by default.
PACKETS=${1:-10000}
# What the kernel allocates while dprof.ko loads (its perf events above
# all, which the perf core touches on every trap and tick) is dprof's
# own: the referee leaves its accesses out (progs/referee_own.c).
referee_own begin
load_mod dprof target=skbuff
referee_own end
# The referee's window (sync to sync) is the traffic, inside the
# recording: averages over time (the working set) then cover the same
# time on both sides, and dprof-view record's own start and end, slow
# under the plugin, are not in it.
dprof-view record --no-progress -o /host/udp.dprof -- \
	sh -c "sync && udp_flood -s 0 -r 1 -n $PACKETS && sync" \
	>/host/udp.log 2>&1 ||
	fail "record/udp_flood failed: $(cat /host/udp.log)"
cat /host/udp.log
echo "packets $PACKETS" >>/host/udp.log
unload_mod dprof
exit 0
