#!/bin/sh
# The run of issue "real applications", as a new user makes it, in the
# Debian guest: Debian's memcached already serving, pinned to CPU 0;
# dprof.ko target=all at its defaults; dprof-view record around memcslap
# on CPU 1 sending 100,000 UDP sets, then 50,000 TCP gets (libmemcached's
# UDP gets abort on an assertion); dprof-view report.  On 2026-11-24 this
# run gave "0 of 202 types sampled".  The report lands in
# /host/first-run/ (build/vmshare/first-run/ on the host).
#
#   scripts/vm.sh -k 6.1 -r debian scripts/guest/memcached-first-run.sh [UDP_SETS TCP_GETS]
udp=${1:-100000}
tcp=${2:-50000}
out=/host/first-run
mkdir -p $out
taskset -c 0 memcached -u nobody -U 11211 -p 11211 -l 127.0.0.1 -t 1 &
i=0
until memcstat --servers=127.0.0.1:11211 >/dev/null 2>&1; do
	[ $i -lt 200 ] || { echo "first-run: memcached did not come up" >&2; exit 1; }
	sleep 0.1
	i=$((i + 1))
done
insmod /lib/modules/dprof/dprof.ko target=all || exit 1
i=0
while ! grep -q "^scan: done\|^scan: off" /sys/kernel/debug/dprof/status && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
cat >/tmp/load.sh <<EOS
taskset -c 1 memcslap -s 127.0.0.1:11211 --udp -t set -e $udp -c 1 >/dev/null
taskset -c 1 memcslap -s 127.0.0.1:11211 -t get -e $tcp -c 1 >/dev/null
EOS
start=$(date +%s)
dprof-view record --no-progress -o $out/first.dprof -- sh /tmp/load.sh || exit 1
echo "recorded $(($(date +%s) - start)) s"
rmmod dprof
dprof-view report -n 12 $out/first.dprof | tee $out/report.txt
