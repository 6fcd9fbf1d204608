#!/bin/sh
# Where a hook's instructions go, function by function, counted by the
# guest itself: the insncount QEMU plugin (referee/insncount.c) counts
# every instruction CPU 0 executes during N allocate+free of
# dprof_workload's cache (between the markers of its churn loop), once
# without dprof and once per configuration; the difference, divided by
# N, is dprof's cost per allocate+free, per function (inclusive of
# nothing: each function's own instructions).  No timing is involved, so
# the figures are exact and repeat; the timer interrupts that fall in the
# loop are in both runs and cancel out to within a few instructions.
#
#   scripts/bench-insns.sh [-k KERNEL] [-n N] [-w churn|udp|memcached|apache] [PARAMS...]
# PARAMS are dprof.ko's (default: target=dprof_workload history=0
# sampler=off, a target's hooks alone).  make bench-insns runs it.
# -w udp counts N UDP packets over loopback instead (udp_flood -m: the
# sender on CPU 0 and the receiver on CPU 1 both counted, per packet
# sent; the receiver's last 200 ms wait for a straggler is in both runs).
# -w memcached counts the whole machine (the plugin's scope=all: every
# vCPU, user space included, dprof-view record's reader too) while two
# memcslap clients send N sets each over TCP to two memcached (each
# pinned, each client on the other CPU), per set, in the Debian guest;
# user-space instructions are summed as "(user space)".  TCP, not the
# UDP of make case-memcached: a client waits for each reply, so every
# set is processed, where with UDP a client slowed by dprof gets more of
# its sets through the servers' buffers and the count grows with it.
# -w apache counts the whole machine the same way while ab sends N
# requests (concurrency 4, on CPU 1) to Debian's Apache on CPU 0, per
# request.  Both run under -icount (single-threaded TCG, where guest time counts
# instructions, as make case-memcached's overhead): what dprof does per
# second of guest time (the census, the ticks, the windows, the reader's
# wake-ups) then weighs against the load as on a machine of one
# instruction per nanosecond, where multi-threaded TCG, some ten times
# slower in guest time, would inflate it.  The servers still drop a
# varying share of the work between the CPUs' idle and busy time, so
# repeat it before trusting a difference of a few percent.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
kernel=6.1
n=100000
workload=churn
while getopts k:n:w: o; do
	case $o in
	k) kernel=$OPTARG ;;
	n) n=$OPTARG ;;
	w) workload=$OPTARG ;;
	*) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- target=dprof_workload history=0 sampler=off
scope=vcpu
rootfs=
icount=0
per=$n
case $workload in
memcached|apache)
	scope=all
	rootfs="-r debian"
	icount=1
	[ $workload = apache ] || per=$((2 * n))	# two clients
	;;
churn|udp) ;;
*) echo "bench-insns: -w $workload: churn, udp, memcached or apache" >&2; exit 2 ;;
esac
kver=$("$top/scripts/kernel.sh" "$kernel")
"$top/scripts/referee.sh" build >&2
map=$("$top/scripts/referee.sh" kallsyms "$kver")
share=$build/vmshare
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-insns.XXXXXX")
# BENCH_INSNS_KEEP=1 keeps the block tables and symbols (named on stderr).
if [ "${BENCH_INSNS_KEEP:-0}" = 1 ]; then
	echo "bench-insns: tables kept in $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

# run NAME [PARAMS...]: one boot, its block counts in $tmp/NAME.
run() {
	name=$1
	shift
	rm -f "$share/insns-modsyms"
	# tsc=reliable: the clocksource of a host and of make bench (vm.sh).
	DPROF_APPEND=tsc=reliable DPROF_ICOUNT=$icount \
		DPROF_PLUGIN="$build/insncount.so,out=$tmp/$name.blocks,scope=$scope" \
		"$top/scripts/vm.sh" -k "$kernel" $rootfs -t 1800 \
		"$top/scripts/guest/insns-guest.sh" "$workload" "$n" "$@" >"$tmp/$name.log" 2>&1 || {
		echo "bench-insns: the guest run '$name' failed:" >&2
		tail -n 5 "$tmp/$name.log" >&2
		exit 1
	}
	cat "$map" "$share/insns-modsyms" >"$tmp/$name.syms"
}

run none
run dprof "$@"
if [ "$workload" = udp ]; then
	echo "instructions per UDP packet over loopback, CPUs 0 and 1 ($n sent, insncount plugin, kernel $kver)"
elif [ "$workload" = memcached ]; then
	echo "instructions per memcached TCP set, the whole machine ($per sent by 2 clients, each waiting for its replies; Debian guest, insncount plugin scope=all, kernel $kver)"
elif [ "$workload" = apache ]; then
	echo "instructions per Apache request, the whole machine ($n from ab at a concurrency of 4; Debian guest, insncount plugin scope=all, kernel $kver)"
else
	echo "instructions per allocate+free of dprof_workload's cache on CPU 0 ($n of them, insncount plugin, kernel $kver)"
fi
echo "dprof.ko $*"
# Each block's instructions go to the function holding its first
# address: symbols sorted by address, blocks too, one merge.
for name in none dprof; do
	awk 'NF >= 3 && $2 ~ /^[tTwW]$/ { print $1, "S", $3 }' "$tmp/$name.syms" >"$tmp/$name.m"
	awk '!/^#/ { printf "%016s B %d\n", $1, $2 * $3 }' "$tmp/$name.blocks" >>"$tmp/$name.m"
	LC_ALL=C sort -k1,1 -k2,2r "$tmp/$name.m" |
		awk -v n="$per" -v run="$name" '
			$2 == "S" { fn = $3; next }
			fn == "" { fn = "(user space)" }
			{ ins[fn] += $3 }
			END { for (f in ins) printf "%s %s %.1f\n", run, f, ins[f] / n }'
done >"$tmp/per-fn"
grep "^# insncount" "$tmp/none.blocks" "$tmp/dprof.blocks" | sed "s|$tmp/||"
awk '
	{ v[$2, $1] = $3; fns[$2] = 1 }
	END {
		for (f in fns) {
			d = v[f, "dprof"] - v[f, "none"]
			if (d > 0.5 || d < -0.5)
				printf "%10.1f %10.1f %10.1f  %s\n", v[f, "none"], v[f, "dprof"], d, f
			tn += v[f, "none"]; td += v[f, "dprof"]
		}
		printf "%10.1f %10.1f %10.1f  %s\n", tn, td, td - tn, "(all)"
	}' "$tmp/per-fn" | sort -k3,3nr | awk 'BEGIN { printf "%10s %10s %10s  %s\n", "without", "with", "dprof", "function" } { print }'
grep -h "^memcached:\|^apache:" "$tmp/none.log" "$tmp/dprof.log" 2>/dev/null | sed "1s/^/without dprof: /;2s/^/with dprof: /" || true
grep -iE "lost|dropped|records|^track_one_in|^live objects|^sample windows|^  young" "$tmp/dprof.log" || true
