#!/bin/sh
# In the guest, under the referee (scripts/check-referee.sh): UDP
# datagrams over loopback from CPU 0 to CPU 1, as make demo sends them,
# measured between two sync(1) calls.  dprof.ko is not loaded.  Writes
# how many datagrams went and sk_buff's layout to /host.
cd /selftests && . ./functions.sh
PACKETS=${PACKETS:-2000}
sync
udp_flood -s 0 -r 1 -n "$PACKETS" >/host/udp.log || fail "udp_flood failed"
sync
echo "packets $PACKETS" >>/host/udp.log
exit 0
