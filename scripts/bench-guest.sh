#!/bin/sh
# Overhead of dprof.ko on real UDP loopback traffic, inside one guest:
# rounds alternate between no module, the slab hooks alone (history=0
# sampler=off), hooks plus the watch sampler's windows (history=0), hooks
# plus histories without sampling (sampler=off), and the default (both),
# also capped at 10 arms/s, each recorded by dprof-view, so all see the
# same emulated machine.  TCG timings are
# not hardware timings; the ratios are what this measures.
rounds=${1:-5}
secs=${2:-2}
off="" hooks="" hist="" capped="" nosample="" windows=""
flood() { udp_flood -s 0 -r 1 -d "$secs" | awk '{ print $9 }'; }
recorded() {
	if ! modload /lib/modules/dprof/dprof.ko target=skbuff "$@" >&2; then
		dmesg | grep "dprof:" | tail -n 3 >&2
		echo 0
		return
	fi
	dprof-view record -o /tmp/bench.dprof -- udp_flood -s 0 -r 1 -d "$secs" 2>/dev/null |
		awk '{ print $9 }'
}
for i in $(seq "$rounds"); do
	off="$off $(flood)"
	hooks="$hooks $(recorded history=0 sampler=off)"
	rmmod dprof
	windows="$windows $(recorded history=0)"
	if [ "$i" -eq "$rounds" ]; then
		grep "^sample windows" /sys/kernel/debug/dprof/histories
		grep "^watch samples" /sys/kernel/debug/dprof/profile
	fi
	rmmod dprof
	capped="$capped $(recorded history_max_arms=10)"
	rmmod dprof
	nosample="$nosample $(recorded sampler=off)"
	rmmod dprof
	hist="$hist $(recorded)"
	if [ "$i" -eq "$rounds" ]; then
		sed -n '/^handler costs/,/^histories:/p' /sys/kernel/debug/dprof/status
		cat /sys/kernel/debug/dprof/histories
		sed -n '1,6p' /sys/kernel/debug/dprof/profile
		dprof-view info /tmp/bench.dprof | grep -E "^(records|histories|file)"
		ls -l /tmp/bench.dprof | awk '{ print "recording: " $5 " bytes" }'
	fi
	rmmod dprof
	rm -f /tmp/bench.dprof
done
echo "packets/s without dprof:          $off"
echo "packets/s with slab hooks only:   $hooks"
echo "packets/s with hooks + windows:   $windows"
echo "packets/s with hooks + histories: $hist"
echo "  ... with history_max_arms=10:    $capped"
echo "  ... with sampler=off:             $nosample"
median() { echo "$@" | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
awk -v a="$(median $off)" -v b="$(median $hooks)" -v c="$(median $hist)" \
	-v d="$(median $capped)" -v e="$(median $nosample)" -v n="$rounds" \
	-v w="$(median $windows)" 'BEGIN {
	printf "median packets/s: without %d, hooks %d (%.1f%% overhead), hooks + histories %d (%.1f%%), histories at 10 arms/s %d (%.1f%%); %d rounds of '"$secs"' s each\n",
		a, b, 100 * (a - b) / a, c, 100 * (a - c) / a, d, 100 * (a - d) / a, n
	printf "watch sampler, windows only (history=0): %d packets/s, hooks alone %d: %.1f%% overhead of sampling at the defaults\n",
		w, b, 100 * (b - w) / b
	printf "watch sampler with histories (default): %d packets/s, histories alone (sampler=off) %d: %.1f%%\n",
		c, e, 100 * (e - c) / e }'
echo "$off" | tr ' ' '\n' | sort -n | awk 'NF { v[++n] = $1 } END {
	printf "noise: rounds without dprof ranged %d..%d packets/s (%.0f%% of the median); read the overheads against it\n",
		v[1], v[n], 100 * (v[n] - v[1]) / v[int((n + 1) / 2)] }'
echo "history element: 16 bytes in the ring and the file (struct dprof_hist_elem)"
echo "aggregated sample entry: 40 bytes (struct dprof_sample_agg), sample_table=4096 per CPU: 160 KiB per CPU"
