#!/bin/sh
# The demo, inside the guest: profile skbuff_head_cache while real UDP
# traffic flows over loopback from a process on CPU 0 to one on CPU 1.
set -e
echo "== dprof demo on $(uname -r) with $(nproc) vCPUs (QEMU TCG: no IBS/PEBS; cycle counts are emulated)"
modload /lib/modules/dprof/dprof.ko target=skbuff
echo "== insmod dprof.ko target=skbuff; calibrated layout:"
sed -n '/^targets:/,/^live objects/p' /sys/kernel/debug/dprof/status
echo "== recording 3 s of UDP loopback traffic, sender on CPU 0, receiver on CPU 1"
dprof-view record -o /host/skbuff.dprof -l "UDP loopback cpu0 -> cpu1" -- \
	udp_flood -s 0 -r 1 -d 3 -l 256
echo
echo "== dprof-view info skbuff.dprof"
dprof-view info /host/skbuff.dprof | sed '/^sections:/,$d'
echo
echo "== dprof-view objects skbuff.dprof  (the address set)"
dprof-view objects /host/skbuff.dprof
echo
echo "== the module's own costs (/sys/kernel/debug/dprof/status)"
sed -n '/^handler costs/,$p' /sys/kernel/debug/dprof/status
rmmod dprof
