#!/bin/sh
# The thesis' memcached case (§6.1), inside the Debian guest (make
# case-memcached, scripts/case-memcached.sh): Debian's memcached and
# memcslap, unmodified.  One memcached per vCPU, each pinned (port 11211
# on CPU 0, 11212 on CPU 1), and a UDP client per server pinned to the
# other CPU, all at once: every datagram is allocated on the client's
# CPU, received there in the softirq of loopback_xmit(), and read by the
# server on the other CPU.  Loopback has no NIC queues, so the thesis'
# cause (a transmit queue picked on another core) cannot appear here;
# what can is the cross-CPU life of every skbuff and of the sockets.
# libmemcached sends UDP sets with noreply; its UDP gets abort on an
# assertion, so the load is sets, not the thesis' gets of a missing key.
#
# Two modes, one boot each (scripts/case-memcached.sh runs both):
# - profile (multi-threaded TCG, where a guest second holds 5-10 times
#   fewer instructions than under -icount, so windows and histories see
#   more of the load per minute): target=all sampler=watch (the report
#   ranks the types), then the top types by name at their defaults
#   (histories for the working set, paths and flow), and the thesis'
#   Table 6.1 for this run; the top types go to top-targets.
# - overhead (under -icount, where guest time counts instructions and
#   repeats): none, then each CONFIG (NAME:PARAMS of dprof.ko, for
#   example "all:target=all"), each timed by the time the clients take
#   to send every datagram, the servers' processing included (they share
#   the CPUs).  With noreply, what memcached cannot read in time
#   overflows its receive buffer and is dropped, so the sets it processed
#   are printed beside, not used as the rate.  Each configuration's
#   status (its traps, ticks and handler costs) goes to
#   status-NAME.txt, the last round's.
#   case-memcached-guest.sh profile SETS_PER_CLIENT TOP
#   case-memcached-guest.sh overhead SETS_PER_CLIENT ROUNDS CONFIG...
mode=${1:?usage: case-memcached-guest.sh profile SETS TOP | overhead SETS ROUNDS NAME:PARAMS...}
n=${2:-100000}
top_n=${3:-4}
out=/host/case-memcached
mkdir -p $out
work=$(mktemp -d)

say() { echo "== $*"; }
# coreutils' date: the busybox one ahead on PATH has no %N.
now_ns() { /bin/date +%s%N; }
sets_of() {	# sets_of PORT: memcached's cmd_set
	memcstat --servers=127.0.0.1:$1 2>/dev/null | awk '$1 == "cmd_set:" { print $2 }'
}
servers_start() {
	pkill -x memcached
	i=0
	while pgrep -x memcached >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	taskset -c 0 memcached -u nobody -U 11211 -p 11211 -l 127.0.0.1 -t 1 &
	taskset -c 1 memcached -u nobody -U 11212 -p 11212 -l 127.0.0.1 -t 1 &
	i=0
	until [ -n "$(sets_of 11211)" ] && [ -n "$(sets_of 11212)" ]; do
		[ $i -lt 200 ] || { echo "case-memcached: memcached did not come up" >&2; exit 1; }
		sleep 0.1
		i=$((i + 1))
	done
}
# The load: both clients at once, each on the other CPU than its server.
# The overhead mode adds a closed loop after the datagrams: the same
# clients over TCP, NT sets each, where a client waits for every reply,
# so every set is processed and sets per second is a throughput.  (With
# UDP noreply, a client slowed by dprof gets more of its datagrams
# through the servers' buffers: the time to send them then carries work
# the run without dprof dropped.)  Guest times to $work/times.
nt=$((n / 4))
{
	echo "t0=\$(/bin/date +%s%N)"
	echo "taskset -c 1 memcslap -s 127.0.0.1:11211 --udp -t set -e $n -c 1 >/dev/null &"
	echo "taskset -c 0 memcslap -s 127.0.0.1:11212 --udp -t set -e $n -c 1 >/dev/null &"
	echo "wait"
	echo "t1=\$(/bin/date +%s%N)"
	if [ "$mode" = overhead ]; then
		echo "taskset -c 1 memcslap -s 127.0.0.1:11211 -t set -e $nt -c 1 >/dev/null &"
		echo "taskset -c 0 memcslap -s 127.0.0.1:11212 -t set -e $nt -c 1 >/dev/null &"
		echo "wait"
	fi
	echo "t2=\$(/bin/date +%s%N)"
	echo "echo \$t0 \$t1 \$t2 >$work/times"
} >$work/load.sh
# run NAME [PARAMS...]: one configuration; "NAME UDP_SETS_DONE UDP_NS
# TCP_NS PARAMS" to $work/runs, its recording in $work/NAME.dprof when
# dprof is loaded.
run() {
	name=$1
	shift
	if [ $# -gt 0 ]; then
		modload /lib/modules/dprof/dprof.ko "$@" ||
			{ echo "case-memcached: dprof.ko $* would not load" >&2; exit 1; }
		# target=all: the load-time scan first, as a user would wait.
		i=0
		while ! grep -q "^scan: done\|^scan: off" /sys/kernel/debug/dprof/status &&
			[ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	servers_start
	s0=$(($(sets_of 11211) + $(sets_of 11212)))
	rm -f $work/times
	if [ $# -gt 0 ]; then
		dprof-view record --no-progress -o $work/$name.dprof -- sh $work/load.sh ||
			{ echo "case-memcached: record failed" >&2; exit 1; }
	else
		sh $work/load.sh
	fi
	# The datagrams' sets: memcached's count after the UDP part would
	# race its last reads; the TCP sets are all processed.
	s1=$(($(sets_of 11211) + $(sets_of 11212) - 2 * nt_done))
	read -r t0 t1 t2 <$work/times ||
		{ echo "case-memcached: the load left no times" >&2; exit 1; }
	if [ $# -gt 0 ]; then
		cp /sys/kernel/debug/dprof/status $out/status-$name.txt
		rmmod dprof
	fi
	echo "$name $((s1 - s0)) $((t1 - t0)) $((t2 - t1)) $*" >>$work/runs
	echo "$name: the clients sent $((2 * n)) sets in $(((t1 - t0) / 1000000)) ms of guest time; memcached processed $((s1 - s0)) (the rest overflowed its receive buffer)"
	[ "$nt_done" -gt 0 ] &&
		echo "$name: then $((2 * nt)) TCP sets, each waiting for its reply, in $(((t2 - t1) / 1000000)) ms"
}

say "setup: $(nproc) vCPUs, kernel $(uname -r); memcached on CPU 0 (port 11211) and CPU 1 (11212), memcslap --udp sets, $n per client, each client on the other CPU than its server; loopback"
nt_done=0
if [ "$mode" = overhead ]; then
	nt_done=$nt
	rounds=${3:?rounds}
	shift 3
	rm -f $out/overhead.txt $out/runs $out/status-*.txt
	r=1
	while [ $r -le "$rounds" ]; do
		run none
		for c in "$@"; do
			# NAME:PARAMS, the parameters split at blanks.
			# shellcheck disable=SC2086
			run "${c%%:*}" ${c#*:}
		done
		r=$((r + 1))
	done
	say "overhead, median of $rounds rounds of guest time (under -icount it counts instructions): the time to send every datagram (UDP, noreply: what the servers cannot read is dropped, so the time also carries how much they processed), and the throughput of the closed loop over TCP ($((2 * nt)) sets, each waiting for its reply: the cleaner figure)"
	awk -v sent=$((2 * n)) -v tsent=$((2 * nt)) '
		function sortv(a, m,  i, j, t) { for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
		# min, median and max of column col of configuration c
		function stats(c, col,  i, m, v) {
			m = k[c]
			for (i = 1; i <= m; i++) v[i] = x[c, col, i]
			sortv(v, m)
			lo[c, col] = v[1]; med[c, col] = v[int((m + 1) / 2)]; hi[c, col] = v[m]
		}
		function cost(c, col, b) { return c == b || !med[b, col] ? "-" : sprintf("%+.1f%%", 100 * (med[c, col] - med[b, col]) / med[b, col]) }
		function ms(c, col) { return sprintf("%6.0f/%6.0f/%6.0f", lo[c, col] / 1e6, med[c, col] / 1e6, hi[c, col] / 1e6) }
		{
			if (!($1 in k)) { order[++nc] = $1; p = ""; for (i = 5; i <= NF; i++) p = p " " $i; params[$1] = p }
			m = ++k[$1]; x[$1, 3, m] = $3; x[$1, 4, m] = $4; done[$1] += $2
		}
		END {
			printf "%-6s %10s %10s %20s %7s %20s %9s %7s  %s\n", "run", "UDP sent", "processed", "UDP ms min/med/max", "cost", "TCP ms min/med/max", "TCP set/s", "cost", "dprof.ko"
			for (o = 1; o <= nc; o++) { stats(order[o], 3); stats(order[o], 4) }
			b = order[1]
			for (o = 1; o <= nc; o++) {
				c = order[o]
				printf "%-6s %10d %10d %20s %7s %20s %9.0f %7s  %s\n", c, sent, done[c] / k[c],
					ms(c, 3), cost(c, 3, b), ms(c, 4), (med[c, 4] > 0 ? tsent * 1e9 / med[c, 4] : 0), cost(c, 4, b), params[c]
			}
			printf "spread of the rounds without dprof: %.1f%% (UDP) and %.1f%% (TCP) of the median\n",
				med[b, 3] ? 100 * (hi[b, 3] - lo[b, 3]) / med[b, 3] : 0, med[b, 4] ? 100 * (hi[b, 4] - lo[b, 4]) / med[b, 4] : 0
		}' $work/runs | tee $out/overhead.txt
	cp $work/runs $out/runs
	pkill -x memcached
	exit 0
fi
rm -f $out/*
# The watch sampler: target=all's default, the operand sampler, is biased
# under multi-threaded TCG, where a tick stops only at a translation
# block's start (design.rst, "The operand sampler"); the overhead mode
# measures the default.
run all target=all sampler=watch
dprof-view report -n 12 $work/all.dprof | tee $out/report-all.txt
# The top types of the whole-kernel run, by name (kmalloc-N as size-N:
# the payloads' buffers are kmalloc'd), for histories.
top=$(awk '$1 ~ /^[0-9]+$/ && $2 != "" { print $2 }' $out/report-all.txt | head -n "$top_n" |
	sed 's/^kmalloc-\([0-9]*\)$/size-\1/' | paste -sd, -)
echo "$top" >$out/top-targets
say "named run on the top $top_n types: target=$top"
run top target="$top"
dprof-view report $work/top.dprof | tee $out/report-top.txt
dprof-view workingset --json $work/top.dprof >$out/workingset-top.json
dprof-view workingset --no-sim $work/top.dprof | tee $out/workingset-top.txt
# Flow graphs (DOT, rendered on the host) and the main paths of the named
# run's top types, as that run names them.
for c in $(awk '$1 ~ /^[0-9]+$/ { print $2 }' $out/report-top.txt | head -n "$top_n"); do
	dprof-view flow --dot -o $out/flow-$c.dot $work/top.dprof "$c" ||
		echo "no flow graph for $c (no complete history)"
	dprof-view paths -n 2 -t "$c" $work/top.dprof | head -n 12
done

# Table 6.1: type, what it is, working-set bytes (the named run's
# occupancy model), share of sampled accesses with its interval and
# bounce (the whole-kernel run's report).
say "Table 6.1 (this run): the whole-kernel report's top types"
awk -v wsfile=$out/workingset-top.txt '
	BEGIN {
		d["skbuff_head_cache"] = "packet metadata (struct sk_buff)"
		d["skbuff_small_head"] = "small packet data (skb heads)"
		d["UDP"] = "UDP sockets (struct udp_sock)"
		d["UDPv6"] = "UDPv6 sockets"
		d["TCP"] = "TCP sockets (struct tcp_sock)"
		d["sock_inode_cache"] = "socket inodes (struct socket_alloc)"
		d["filp"] = "open files (struct file)"
		d["dentry"] = "directory entries"
		d["task_struct"] = "tasks"
		d["rtable"] = "IPv4 routes cached (struct rtable)"
		while ((getline l < wsfile) > 0) {
			split(l, f, " ")
			if (f[3] ~ /^[0-9.]+$/ && f[5] ~ /^[0-9]/) ws[f[1]] = f[5] " " f[6]
		}
		printf "%-22s %-36s %12s %16s %16s\n", "type", "description", "working set", "share (95%)", "bounce (95%)"
	}
	$1 ~ /^[0-9]+$/ && NF >= 8 {
		t = $2
		desc = (t in d) ? d[t] : t ~ /^kmalloc-/ ? "kmalloc buffers (payloads, packet data)" :
			$3 == "-" ? "-" : "struct " $3
		share = ""
		for (i = 4; i <= NF; i++)
			if ($i ~ /%$/ && share == "") {
				share = $i
				if ($(i + 1) == "±")
					share = share " ± " $(i + 2)
				else if ($(i + 1) ~ /^±/)	# "±?": no interval
					share = share " " $(i + 1)
			}
		# The bounce: "P% ±E n=ADDRESSES", "P% n=1" or "?" (the share
		# has a decimal point, the bounce none).
		b = "?"
		for (i = NF; i > 4; i--)
			if ($i ~ /^[0-9]+%$/) {
				b = $i
				for (k = i + 1; k <= NF; k++)
					b = b " " $k
				break
			}
		w = (t in ws) ? ws[t] : "-"
		if (++shown <= 8)
			printf "%-22s %-36s %12s %16s %16s\n", t, desc, w, share, b
	}' $out/report-all.txt | tee $out/table-6.1.txt

pkill -x memcached
exit 0
