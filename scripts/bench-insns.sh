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
#   scripts/bench-insns.sh [-k KERNEL] [-n N] [-w churn|udp] [PARAMS...]
# PARAMS are dprof.ko's (default: target=dprof_workload history=0
# sampler=off, a target's hooks alone).  make bench-insns runs it.
# -w udp counts N UDP packets over loopback instead (udp_flood -m: the
# sender on CPU 0 and the receiver on CPU 1 both counted, per packet
# sent; the receiver's last 200 ms wait for a straggler is in both runs).
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
	*) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- target=dprof_workload history=0 sampler=off
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
	DPROF_APPEND=tsc=reliable \
		DPROF_PLUGIN="$build/insncount.so,out=$tmp/$name.blocks" \
		"$top/scripts/vm.sh" -k "$kernel" -t 900 \
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
		awk -v n="$n" -v run="$name" '
			$2 == "S" { fn = $3; next }
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
grep -iE "lost|dropped|records|^track_one_in|^live objects|^sample windows|^  young" "$tmp/dprof.log" || true
