#!/bin/sh
# make demo-diff, inside the guest: a TCP server over loopback at its peak
# (2 clients: it keeps up) and at its drop-off (64 clients: it falls
# behind, the accept queue fills), two recordings each, then the
# differential profiles that say which type grows.
set -e
echo "== dprof diff demo on $(uname -r) with $(nproc) vCPUs (QEMU TCG: no IBS/PEBS, so no miss latency)"
modload /lib/modules/dprof/dprof.ko target=tcp,skbuff
for side in peak:2 dropoff:64; do
	name=${side%%:*} clients=${side#*:}
	for i in 1 2; do
		echo "== recording $name, run $i: tcp_load with $clients clients, 2 ms of server work per connection"
		dprof-view record -o "/host/$name-$i.dprof" -l "$name, $clients clients" \
			--load "$clients" --work "@/tmp/work-$name-$i" -- \
			tcp_load -d 2 -c "$clients" -b 128 -w 2000 -o "/tmp/work-$name-$i"
	done
done
rmmod dprof
A=/host/peak-1.dprof,/host/peak-2.dprof
B=/host/dropoff-1.dprof,/host/dropoff-2.dprof
for m in live-bytes lifetime ws-bytes sim-miss-rate samples; do
	echo
	echo "== dprof-view diff -m $m --all peak dropoff"
	dprof-view diff -m "$m" --all "$A" "$B"
done
echo
echo "== dprof-view diff --saturation --limit 1048576 -m live-bytes peak dropoff  (which type reaches 1 MiB live first)"
dprof-view diff --saturation --limit 1048576 -m live-bytes "$A" "$B"
echo
echo "== dprof-view diff -b field -m samples --weighted -n 8 peak dropoff  (fields whose accesses grew more than the work done)"
dprof-view diff -b field -m samples --weighted -n 8 "$A" "$B"
echo
echo "== dprof-view diff -m latency peak dropoff  (the watch sampler cannot tell; sim-miss-rate above is the estimate)"
dprof-view diff -m latency "$A" "$B" || true
