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
echo "== dprof-view histories skbuff.dprof  (object access histories, debug registers)"
dprof-view histories /host/skbuff.dprof | head -16
echo "   ..."
# A complete history allocated on CPU 0, freed on CPU 1, touched by both.
id=$(dprof-view histories --script /host/skbuff.dprof | awk '
$1 == "history" && $13 == "freed" && $15 == 1 && $7 == 0 && $9 == 1 { h[$2] = 1 }
$1 == "access" && h[$2] { cpus[$2 "," $4] = 1; n[$2]++ }
END { for (i in h) if (cpus[i ",0"] && cpus[i ",1"] && n[i] > best) { best = n[i]; id = i }
      print id }')
if [ -n "$id" ]; then
	echo
	echo "== dprof-view histories --id $id skbuff.dprof  (one skbuff from allocation to free)"
	dprof-view histories --id "$id" /host/skbuff.dprof
else
	echo "(no complete history crossed from CPU 0 to CPU 1 in this run)"
fi
echo
echo "== the data profile as dprof.ko prints it (/sys/kernel/debug/dprof/profile)"
cat /sys/kernel/debug/dprof/profile
echo
echo "== dprof-view profile skbuff.dprof  (fields named from the guest kernel's BTF)"
dprof-view profile /host/skbuff.dprof
echo
echo "== dprof-view classify skbuff.dprof  (sharing and hand-offs per field and per cache line, estimated from the histories)"
dprof-view classify /host/skbuff.dprof
echo
echo "== dprof-view classify --combined skbuff.dprof  (one whole life per line, put together from the histories)"
dprof-view classify --combined /host/skbuff.dprof
echo
echo "== dprof-view workingset skbuff.dprof  (occupancy of the L1 data cache)"
dprof-view workingset /host/skbuff.dprof
echo
echo "== dprof-view paths -n 1 skbuff.dprof  (histories merged by execution path)"
dprof-view paths -n 1 /host/skbuff.dprof
echo
echo "== dprof-view advise skbuff.dprof skbuff_head_cache  (a field order from the histories, and its what-if)"
dprof-view advise /host/skbuff.dprof skbuff_head_cache
echo
echo "== history collection (/sys/kernel/debug/dprof/histories)"
cat /sys/kernel/debug/dprof/histories
echo
echo "== the module's own costs (/sys/kernel/debug/dprof/status)"
sed -n '/^handler costs/,/^histories:/p' /sys/kernel/debug/dprof/status
rmmod dprof
