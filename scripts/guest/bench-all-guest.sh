#!/bin/sh
# What dprof costs, inside one guest run under QEMU's -icount (vm.sh
# with DPROF_ICOUNT=1, as make bench runs it): guest time then advances
# by instructions executed (shift=0: one nanosecond each), so the figures
# are instruction counts and repeat from run to run; they are not
# hardware cycles.  Per configuration and round:
#   udp   packets/s of udp_flood over loopback for SECS guest seconds
#   churn guest ns (~ instructions) per allocate+free of one object of
#         dprof_workload's own cache (a target only with target=all)
# each recorded by dprof-view record, as a user would run it.
# Configurations: without dprof; target=skbuff hooks only (history=0
# sampler=off), and the same tracking 1 object in 16 (track_one_in=16,
# the knob for the hooks' overhead); the peer, kmem trace events of skbuff_head_cache through
# tracefs; target=skbuff with sample windows only (history=0), with
# histories only (sampler=off), and at its defaults (both); target=all
# hooks only (sampler=off, histories are off with all); target=all with
# the watch sampler (its windows, census and hooks); target=all at its
# defaults (the operand sampler, no hook: a TCG guest has no IBS or
# PEBS).  Then each handler's instructions per call
# against its budget, the parts of a target hook (cost_parts=1), the
# sample path (sampler=inject), and a hook's cost against the number of
# live tracked objects.
#   bench-all-guest.sh [parts] [ROUNDS [SECS [CHURN_N [CONFIG...]]]]
# "parts" (make bench-parts) skips the configurations: the handlers' and
# the parts' instructions alone, in a few minutes.
# CONFIGs (make bench BENCH_ARGS="3 2 200000 none skbuff-default"): some
# of the configurations below, "none" first; default all of them.
mode=all
[ "$1" = parts ] && { mode=parts; shift; }
rounds=${1:-5}
secs=${2:-2}
churn_n=${3:-200000}
[ $# -gt 3 ] && shift 3 || set --
configs=${*:-none skbuff-exact skbuff-hooks skbuff-1in16 peer-kmem skbuff-windows skbuff-histories skbuff-default all-hooks all-watch all-default}
WL=/sys/kernel/debug/dprof_workload

# Guest ns per allocate+free, timed by dprof_workload around its loop
# (busybox date has no nanoseconds), whole ns.
cat >/tmp/churn.sh <<EOS
echo "churn $churn_n 0" >$WL/ctl || exit 1
awk '\$1 == "churn_ns_per_op" { printf "%d\\n", \$2 }' $WL/stats
EOS
churn() { sh /tmp/churn.sh; }
udp() { udp_flood -s 0 -r 1 -d "$secs" | awk '{ print $9 }'; }

# The peer a user would otherwise reach for: the kernel's own kmem trace
# events for skbuff_head_cache, recorded into the tracing ring buffer and
# read from trace_pipe as trace-cmd does.  kmem_cache_free carries the
# cache's name on both kernels, kmem_cache_alloc on neither, and 6.1
# filters no function names: allocations are filtered on the call sites
# that allocate skbuffs here, __alloc_skb and skb_clone, as address ranges.
T=/sys/kernel/tracing
KMEM=$T/events/kmem
fn_range() {	# NAME -> "0xSTART 0xEND", END the next text symbol
	awk '($2 == "t" || $2 == "T") && NF == 3 { print $1, $3 }' /proc/kallsyms |
		sort | awk -v n="$1" 'at { print "0x" at, "0x" $1; exit }
			$2 == n { at = $1 }'
}
peer_on() {
	local a b
	[ -e $T/events ] || mount -t tracefs nodev $T || return 1
	echo >$T/trace
	echo 4096 >$T/buffer_size_kb
	set -- $(fn_range __alloc_skb) $(fn_range skb_clone)
	[ $# -eq 4 ] || return 1
	echo "(call_site >= $1 && call_site < $2) || (call_site >= $3 && call_site < $4)" \
		>$KMEM/kmem_cache_alloc/filter || return 1
	echo 'name == "skbuff_head_cache"' >$KMEM/kmem_cache_free/filter || return 1
	PEER_FILTERS="$(cat $KMEM/kmem_cache_alloc/filter) / $(cat $KMEM/kmem_cache_free/filter)"
	echo 1 >$KMEM/kmem_cache_alloc/enable
	echo 1 >$KMEM/kmem_cache_free/enable
	cat $T/trace_pipe >/tmp/peer.trace &
	PEER_READER=$!
}
peer_off() {
	echo 0 >$KMEM/kmem_cache_alloc/enable
	echo 0 >$KMEM/kmem_cache_free/enable
	sleep 1		# let the reader drain
	kill $PEER_READER
	wait $PEER_READER 2>/dev/null
	echo 0 >$KMEM/kmem_cache_alloc/filter
	echo 0 >$KMEM/kmem_cache_free/filter
	if [ "$last" = 1 ]; then
		echo "--- peer-kmem: $(grep -c kmem_cache_alloc /tmp/peer.trace) allocs and $(grep -c kmem_cache_free /tmp/peer.trace) frees read from trace_pipe; filters: $PEER_FILTERS; lost: $(grep -h overrun $T/per_cpu/cpu*/stats | tr '\n' ' ')" >&2
		grep -m 1 kmem_cache_alloc /tmp/peer.trace >&2
	fi
	rm -f /tmp/peer.trace
}

# measure NAME [dprof params...]: one round of both workloads
measure() {
	local name=$1 p c
	shift
	if [ "$name" = none ]; then
		p=$(udp)
		c=$(churn)
	elif [ "$name" = peer-kmem ]; then
		if peer_on; then
			p=$(udp)
			c=$(churn)
			peer_off
		fi
	else
		if ! modload /lib/modules/dprof/dprof.ko "$@" >&2; then
			dmesg | grep "dprof:" | tail -n 3 >&2
			echo "$name 0 0"
			return
		fi
		# target=all: wait for the load-time scan, as a user would.
		i=0
		while ! grep -q "^scan: done\|^scan: off" /sys/kernel/debug/dprof/status &&
			[ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		p=$(dprof-view record -o /tmp/bench.dprof -- udp_flood -s 0 -r 1 -d "$secs" 2>/dev/null |
			awk '{ print $9 }')
		c=$(dprof-view record -o /tmp/bench.dprof -- sh /tmp/churn.sh 2>/dev/null)
		if [ "$last" = 1 ]; then
			echo "--- $name: $*" >&2
			grep -E "^(live objects|track_one_in|scan|  older|target=all)" /sys/kernel/debug/dprof/status >&2
			sed -n '/^handler costs/,/^$/p' /sys/kernel/debug/dprof/status | head -12 >&2
			grep -E "^  costs|^sample windows|^  sample windows" /sys/kernel/debug/dprof/histories >&2
		fi
		rmmod dprof
		rm -f /tmp/bench.dprof
	fi
	echo "$name ${p:-0} ${c:-0}"
}

if [ $mode = all ]; then
echo "kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), $(nproc) CPUs; the handler tables below are from each configuration's last round"
# Return thunks and the like add instructions to every call and return.
for v in spectre_v2 retbleed spec_rstack_overflow; do
	f=/sys/devices/system/cpu/vulnerabilities/$v
	[ -r $f ] && echo "  $v: $(cat $f)"
done
modload /lib/modules/dprof/dprof_workload.ko || exit 1
for i in $(seq "$rounds"); do
	last=0
	[ "$i" -eq "$rounds" ] && last=1
	for c in $configs; do
		case $c in
		none | peer-kmem) measure $c ;;
		skbuff-hooks) measure $c target=skbuff history=0 sampler=off ;;
		skbuff-1in16) measure $c target=skbuff history=0 sampler=off track_one_in=16 ;;
		skbuff-exact) measure $c target=skbuff history=0 sampler=off track_one_in=1 ;;
		skbuff-windows) measure $c target=skbuff history=0 ;;
		skbuff-histories) measure $c target=skbuff sampler=off ;;
		skbuff-default) measure $c target=skbuff ;;
		all-bare) measure $c target=all sampler=off history=0 ;;
		all-hooks) measure $c target=all sampler=off ;;
		all-watch) measure $c target=all sampler=watch ;;
		all-default) measure $c target=all ;;
		*) echo "bench: unknown configuration $c" >&2 ;;
		esac
	done
done >/tmp/bench-all.txt
rmmod dprof_workload

echo "costs of dprof and of the kmem trace-event peer, $rounds rounds, $secs s of UDP and $churn_n allocate+free each; guest time under -icount (ns ~ instructions)"
awk '
	function sortv(a, n,  i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
	{ k = $1; if (!(k in n)) order[++nk] = k; n[k]++; udp[k, n[k]] = $2; ch[k, n[k]] = $3 }
	END {
		printf "%-16s %28s %28s %12s %12s\n", "config", "UDP packets/s min/med/max", "churn ns/op min/med/max", "UDP cost", "churn cost"
		for (o = 1; o <= nk; o++) {
			k = order[o]; m = n[k]
			for (i = 1; i <= m; i++) { u[i] = udp[k, i]; c[i] = ch[k, i] }
			sortv(u, m); sortv(c, m)
			mu = u[int((m + 1) / 2)]; mc = c[int((m + 1) / 2)]
			if (k == "none") { base_u = mu; base_c = mc; su = u[1] > 0 ? (u[m] - u[1]) / mu : 0; sc = mc > 0 ? (c[m] - c[1]) / mc : 0 }
			cu = base_u > 0 ? sprintf("%+.1f%%", 100 * (base_u - mu) / base_u) : "-"
			cc = base_c > 0 && mc > 0 ? sprintf("%+.1f%%", 100 * (mc - base_c) / base_c) : "not measured"
			printf "%-16s %9d/%9d/%9d %9d/%9d/%9d %12s %12s\n", k, u[1], mu, u[m], c[1], mc, c[m], cu, cc
		}
		printf "spread of the rounds without dprof: UDP %.1f%%, churn %.1f%% of the median%s\n", 100 * su, 100 * sc,
			(su > 0.03 || sc > 0.03) ? " (over 3%: the figures are not usable)" : ""
	}' /tmp/bench-all.txt
fi

# Where a target hook's instructions go: cost_parts=1 times each part
# (get_cycles() between them, which adds its own few instructions).
echo "--- parts of a target's hooks (target=dprof_workload history=0 sampler=off cost_parts=1, 100000 allocate+free)"
modload /lib/modules/dprof/dprof_workload.ko || exit 1
if modload /lib/modules/dprof/dprof.ko target=dprof_workload history=0 \
	sampler=off cost_parts=1 >&2; then
	echo "churn 100000 0" >$WL/ctl
	grep -E "^  target (alloc|free) parts" /sys/kernel/debug/dprof/status
	rmmod dprof
fi
if [ $mode = parts ] && modload /lib/modules/dprof/dprof.ko \
	target=dprof_workload history=0 sampler=off >&2; then
	echo "--- the same without cost_parts: instructions per call"
	echo "churn 100000 0" >$WL/ctl
	sed -n '/^handler costs/,/^$/p' /sys/kernel/debug/dprof/status
	rmmod dprof
fi
rmmod dprof_workload

# The sample path without a PMU: sampler=inject runs 100,000 samples at
# jiffies (not slab: the longest resolution, then the address table) and
# the status shows perf:sample's instructions per call.
echo "--- sample path (sampler=inject, 100000 samples at jiffies; perf:sample row)"
jiffies=$(awk '$3 == "jiffies" && NF == 3 { print $1; exit }' /proc/kallsyms)
vfs_read=$(awk '$3 == "vfs_read" && NF == 3 { print $1; exit }' /proc/kallsyms)
if modload /lib/modules/dprof/dprof.ko target=skbuff sampler=inject history=0 >&2; then
	echo "100000 $jiffies $vfs_read load+miss 100" >/sys/kernel/debug/dprof/inject
	sed -n '/^handler costs/,/^$/p' /sys/kernel/debug/dprof/status |
		grep -E "^handler|instructions =|hook|perf:sample"
	rmmod dprof
else
	echo "sampler=inject would not load: $(dmesg | grep 'dprof:' | tail -n 1)"
fi

# Scale: a target hook's cost against the live objects it tracks.  The
# workload holds N objects of its cache (tracked, allocated after load),
# then times 100,000 allocate+free on top of them.
echo "--- allocate+free of a target against live tracked objects (target=dprof_workload history=0 sampler=off)"
modload /lib/modules/dprof/dprof_workload.ko || exit 1
for n in 10000 100000 1000000; do
	if ! modload /lib/modules/dprof/dprof.ko target=dprof_workload \
		history=0 sampler=off max_objects=4194304 >&2; then
		echo "$n: dprof would not load: $(dmesg | grep 'dprof:' | tail -n 1)"
		continue
	fi
	echo "alloc $n 0" >$WL/ctl || echo "$n: the workload could not hold $n objects"
	echo "churn 100000 0" >$WL/ctl
	printf '%8d live: %s ns per allocate+free; %s\n' "$n" \
		"$(awk '$1 == "churn_ns_per_op" { print $2 }' $WL/stats)" \
		"$(grep '^live objects' /sys/kernel/debug/dprof/status)"
	echo reset >$WL/ctl
	rmmod dprof
done
rmmod dprof_workload
