#!/bin/sh
# One configuration of make bench-insns (scripts/bench-insns.sh), inside a
# guest run with the insncount plugin: dprof loaded with PARAMS (none:
# without dprof), then N allocate+free of dprof_workload's cache on CPU 0
# between the plugin's markers (workload churn), or N UDP packets over
# loopback from CPU 0 to CPU 1, both processes between markers (udp); the
# module symbols go to /host for the host to name the blocks.
#   insns-guest.sh churn|udp N [PARAMS...]
workload=${1:?usage: insns-guest.sh churn|udp N [PARAMS...]}
n=${2:?usage: insns-guest.sh churn|udp N [PARAMS...]}
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
*)
	echo "insns-guest: unknown workload $workload (churn or udp)" >&2
	exit 2
	;;
esac
if [ $# -gt 0 ]; then
	dprof-view record -o /tmp/insns.dprof -- sh -c "$cmd" || exit 1
	dprof-view info /tmp/insns.dprof | grep -iE "lost|dropped|records"
else
	sh -c "$cmd" || exit 1
fi
grep -E "\[dprof" /proc/kallsyms >/host/insns-modsyms
[ $# -gt 0 ] && grep -E "^(live objects|track_one_in)" /sys/kernel/debug/dprof/status
[ $# -gt 0 ] && grep -E "^(sample windows|  young)" /sys/kernel/debug/dprof/histories
[ $# -gt 0 ] && sed -n '/^handler costs/,/^$/p' /sys/kernel/debug/dprof/status
exit 0
