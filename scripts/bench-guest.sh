#!/bin/sh
# Overhead of dprof.ko's slab hooks on real UDP loopback traffic, inside
# one guest: rounds alternate without and with the module (recording
# drained by dprof-view), so both see the same emulated machine.  TCG
# timings are not hardware timings; the ratio is what this measures.
rounds=${1:-5}
secs=${2:-2}
off="" on=""
for i in $(seq "$rounds"); do
	r=$(udp_flood -s 0 -r 1 -d "$secs" | awk '{ print $9 }')
	off="$off $r"
	modload /lib/modules/dprof/dprof.ko target=skbuff
	r=$(dprof-view record -o /tmp/bench.dprof -- udp_flood -s 0 -r 1 -d "$secs" 2>/dev/null |
		awk '{ print $9 }')
	on="$on $r"
	[ "$i" -eq "$rounds" ] && sed -n '/^records per CPU/,$p' /sys/kernel/debug/dprof/status
	rmmod dprof
	rm -f /tmp/bench.dprof
done
echo "packets/s without dprof:$off"
echo "packets/s with dprof:   $on"
median() { echo "$@" | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ma=$(median $off)
mb=$(median $on)
awk -v a="$ma" -v b="$mb" -v n="$rounds" 'BEGIN {
	printf "median without %d, with %d packets/s: overhead %.1f%% (%d rounds of '"$secs"' s each)\n",
		a, b, 100 * (a - b) / a, n }'
