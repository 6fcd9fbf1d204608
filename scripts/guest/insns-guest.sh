#!/bin/sh
# One configuration of make bench-insns (scripts/bench-insns.sh), inside a
# guest run with the insncount plugin: dprof loaded with PARAMS (none:
# without dprof), then N allocate+free of dprof_workload's cache on CPU 0
# between the plugin's markers; the module symbols go to /host for the
# host to name the blocks.
#   insns-guest.sh N [PARAMS...]
n=${1:?usage: insns-guest.sh N [PARAMS...]}
shift
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
echo "churn 1000 0" >$wl || exit 1
if [ $# -gt 0 ]; then
	dprof-view record -o /tmp/insns.dprof -- sh -c "echo 'churn $n 0' >$wl" || exit 1
	dprof-view info /tmp/insns.dprof | grep -iE "lost|dropped|records"
else
	echo "churn $n 0" >$wl || exit 1
fi
grep -E "\[dprof" /proc/kallsyms >/host/insns-modsyms
[ $# -gt 0 ] && sed -n '/^handler costs/,/^$/p' /sys/kernel/debug/dprof/status
exit 0
