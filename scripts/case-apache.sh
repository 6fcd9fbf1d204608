#!/bin/sh
# make case-apache: the thesis' Apache case (§6.2) in the Debian guest;
# scripts/guest/case-apache-guest.sh says what runs and why.  Two boots:
# under -icount (guest time counts instructions and repeats), the sweep
# of ab's concurrency that finds the peak and the drop-off, the accept
# queue's length at the drop-off (the thesis' fix), and dprof's overhead
# at the peak; then, multi-threaded (windows and histories see more of
# the load per minute), the profile at the drop-off and the diff between
# two recordings at the peak and two at the drop-off.  The -icount boot
# also measures the thesis' evaluation: history collection time and cost
# per type (Table 6.7) and the cost against the window rate (Figure 6-2);
# the profile boot, unique paths against histories collected (Figure 6-3).
# Tables, plots (SVG) and recordings land in build/case-apache/.  About
# 25 minutes at the defaults (2026-11-28).
#
#   scripts/case-apache.sh [-k KERNEL] [-n REQUESTS] [-r ROUNDS] [-l LEVELS] [-T TARGETS]
#   -n  requests per ab run (default 4000)
#   -r  rounds per level of the sweep and of the overhead (default 2)
#   -l  ab concurrencies swept (default "1 16 256 1024")
#   -T  the types profiled by name and diffed (default: TCP sockets, their
#       request socks, the two skbuff caches, tasks)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
n=4000
rounds=2
levels="1 16 256 1024"
targets=TCP,request_sock_TCP,skbuff_head_cache,skbuff_fclone_cache,task_struct
while getopts k:n:r:l:T: o; do
	case $o in
	k) kernel=$OPTARG ;;
	n) n=$OPTARG ;;
	r) rounds=$OPTARG ;;
	l) levels=$OPTARG ;;
	T) targets=$OPTARG ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
# ab refuses more clients than requests.
for c in $levels; do
	[ "$c" -le "$n" ] || {
		echo "case-apache: -l level $c is more clients than the $n requests per run (-n): ab refuses it; raise -n" >&2
		exit 2
	}
done
out=$top/build/case-apache
share=$top/build/vmshare
guest=$top/scripts/guest/case-apache-guest.sh
rm -rf "$share/case-apache"
DPROF_ICOUNT=1 "$top/scripts/vm.sh" -k "$kernel" -r debian -t 3600 \
	"$guest" sweep "$n" "$rounds" "$levels"
set -- $(cat "$share/case-apache/levels")
peak=$1 drop=$2
DPROF_ICOUNT=1 "$top/scripts/vm.sh" -k "$kernel" -r debian -t 3600 \
	"$guest" overhead "$n" "$rounds" "$peak" "$targets"
"$top/scripts/vm.sh" -k "$kernel" -r debian -t 3600 \
	"$guest" profile "$n" "$peak" "$drop" "$targets"
rm -rf "$out"
cp -r "$share/case-apache" "$out"
# Plots a person would rather look at than read: the sweep (the thesis'
# peak and drop-off) and the overhead against the window rate (its
# Figure 6-2).
awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1, $2 }' "$out/sweep.txt" >"$out/sweep.dat"
awk 'NR > 1 && $1 ~ /^[0-9]+$/ { sub(/%/, "", $4); print $2, -$4, $1 }' \
	"$out/window-rate.txt" >"$out/window-rate.dat"
# One block per type (gnuplot's index), for the paths' growth.
awk 'NR > 1 { if ($1 != last && NR > 2) printf "\n\n"; last = $1; print $2, $3 }' \
	"$out/paths-growth.txt" >"$out/paths-growth.dat"
types=$(awk 'NR > 1 && $1 != last { last = $1; printf "%s ", $1 }' "$out/paths-growth.txt")
gnuplot <<EOF
set terminal svg size 640,400 dynamic noenhanced
set output "$out/sweep.svg"
set title "Apache in the guest: requests per second of guest time (-icount) against ab's clients"
set logscale x 2
set xlabel "ab concurrency (clients)"
set ylabel "requests/s (median)"
set yrange [0:*]
plot "$out/sweep.dat" using 1:2 with linespoints title "apache2, mpm_event"
set output "$out/window-rate.svg"
set title "dprof's cost against the rate of sample windows (target=all history=0)"
unset logscale x
set xlabel "sample windows per second of guest time"
set ylabel "throughput lost (%)"
set yrange [*:*]
plot "$out/window-rate.dat" using 1:2:3 with labels offset 0,1 notitle, \
	"" using 1:2 with linespoints title "sample_window_ms as labelled"
set output "$out/paths-growth.svg"
set title "Unique paths against complete histories collected, per type (histories alone, at the peak)"
set xlabel "complete histories"
set ylabel "unique paths"
set yrange [0:*]
set key left top
types = "$types"
plot for [i = 0:words(types) - 1] "$out/paths-growth.dat" index i using 1:2 with linespoints title word(types, i + 1)
EOF
echo
for f in sweep fix overhead collection window-rate; do
	echo "== $f (under -icount)"
	cat "$out/$f.txt"
done
echo "== unique paths against histories (multi-threaded TCG; plot in paths-growth.svg)"
cat "$out/paths-growth.txt"
echo "== dprof-view diff -m lifetime, peak ($peak clients) against drop-off ($drop clients)"
cat "$out/diff-lifetime.txt"
echo "reports, diffs, working sets and recordings in $out"
