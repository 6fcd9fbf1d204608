#!/bin/sh
# One configuration of make bench-insns (scripts/bench-insns.sh), inside a
# guest run with the insncount plugin: dprof loaded with PARAMS (none:
# without dprof), then N allocate+free of dprof_workload's cache on CPU 0
# between the plugin's markers (workload churn), or N UDP packets over
# loopback from CPU 0 to CPU 1, both processes between markers (udp), or
# (Debian guest, plugin scope=all) N memcached TCP sets per client,
# every vCPU counted from the first set to the last (memcached), or N
# requests of ab to Apache, every vCPU counted (apache); the module
# symbols go to /host for the host to name the blocks.
#   insns-guest.sh churn|udp|memcached|apache N [PARAMS...]
workload=${1:?usage: insns-guest.sh churn|udp|memcached|apache N [PARAMS...]}
n=${2:?usage: insns-guest.sh churn|udp|memcached|apache N [PARAMS...]}
shift 2
modload /lib/modules/dprof/dprof_workload.ko || exit 1
if [ $# -gt 0 ]; then
	modload /lib/modules/dprof/dprof.ko "$@" || {
		dmesg | grep "dprof:" | tail -n 3
		exit 1
	}
fi
# Warm up first (caches, per-CPU slabs), then the counted run, under
# dprof-view record as a user runs it: a reader drains the rings (on the
# other CPU, mostly; the plugin counts CPU 0 alone).
wl=/sys/kernel/debug/dprof_workload/ctl
case $workload in
churn)
	echo "churn 1000 0" >$wl || exit 1
	cmd="echo 'churn $n 0' >$wl"
	;;
udp)
	udp_flood -s 0 -r 1 -n 2000 >/dev/null || exit 1
	cmd="udp_flood -s 0 -r 1 -n $n -m"
	;;
memcached)
	# As scripts/guest/case-memcached-guest.sh, a server pinned on each
	# CPU and each one's client on the other CPU, but over TCP: a client
	# waits for each reply, so every set sent is processed and the
	# instructions per set are one set's, where UDP sets with noreply
	# overflow the servers' buffers and a slower client (dprof loaded)
	# gets more of its sets processed, and counted.
	command -v memcached >/dev/null ||
		{ echo "insns-guest: memcached needs the Debian guest (vm.sh -r debian)" >&2; exit 2; }
	taskset -c 0 memcached -u nobody -p 11211 -l 127.0.0.1 -t 1 &
	taskset -c 1 memcached -u nobody -p 11212 -l 127.0.0.1 -t 1 &
	sleep 2
	load() {	# load SETS_PER_CLIENT
		echo "taskset -c 1 memcslap -s 127.0.0.1:11211 -t set -e $1 -c 1 >/dev/null &"
		echo "taskset -c 0 memcslap -s 127.0.0.1:11212 -t set -e $1 -c 1 >/dev/null &"
		echo "wait"
	}
	sets() {
		for port in 11211 11212; do
			memcstat --servers=127.0.0.1:$port | awk '$1 == "cmd_set:" { print $2 }'
		done | awk '{ s += $1 } END { print s + 0 }'
	}
	load 2000 >/tmp/warm.sh
	sh /tmp/warm.sh || exit 1
	{ echo "insns_mark on"; load "$n"; echo "insns_mark off"; } >/tmp/load.sh
	cmd="sh /tmp/load.sh"
	;;
apache)
	# Debian's Apache (mpm_event, its default page) on CPU 0, ab on CPU
	# 1 at a concurrency of 4: ab waits for each reply, so every request
	# sent is served and counted.
	command -v apache2 >/dev/null ||
		{ echo "insns-guest: apache needs the Debian guest (vm.sh -r debian)" >&2; exit 2; }
	. /etc/apache2/envvars
	mkdir -p /run/lock "$APACHE_RUN_DIR" "$APACHE_LOG_DIR" "$APACHE_LOCK_DIR"
	taskset -c 0 apache2 -k start 2>/dev/null || exit 1
	i=0
	until ab -q -n 1 -c 1 http://127.0.0.1/ >/dev/null 2>&1; do
		[ $i -lt 100 ] || { echo "insns-guest: apache2 does not answer" >&2; exit 1; }
		sleep 0.2
		i=$((i + 1))
	done
	taskset -c 1 ab -q -n 1000 -c 4 http://127.0.0.1/ >/dev/null || exit 1
	{ echo "insns_mark on"; echo "taskset -c 1 ab -q -n $n -c 4 http://127.0.0.1/ >/tmp/ab.txt"
	  echo "insns_mark off"; } >/tmp/load.sh
	cmd="sh /tmp/load.sh"
	;;
*)
	echo "insns-guest: unknown workload $workload (churn, udp, memcached or apache)" >&2
	exit 2
	;;
esac
if [ $# -gt 0 ]; then
	dprof-view record -o /tmp/insns.dprof -- sh -c "$cmd" || exit 1
	dprof-view info /tmp/insns.dprof | grep -iE "lost|dropped|records"
else
	sh -c "$cmd" || exit 1
fi
[ "$workload" = memcached ] && echo "memcached: $(sets) sets processed in all, warm-up included"
[ "$workload" = apache ] && echo "apache: $(grep -E '^(Complete|Failed) requests' /tmp/ab.txt | tr -s ' ' | paste -sd, -)"
grep -E "\[dprof" /proc/kallsyms >/host/insns-modsyms
[ $# -gt 0 ] && grep -E "^(live objects|track_one_in|operand sampler|  [0-9]+ operands sampled|  kernel ticks by delay)" /sys/kernel/debug/dprof/status
[ $# -gt 0 ] && grep -E "^(sample windows|  young)" /sys/kernel/debug/dprof/histories
[ $# -gt 0 ] && sed -n '/^handler costs/,/^$/p' /sys/kernel/debug/dprof/status
exit 0
