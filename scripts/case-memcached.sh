#!/bin/sh
# make case-memcached: the thesis' memcached case (§6.1) in the Debian
# guest; scripts/guest/case-memcached-guest.sh says what runs and why.
# Two boots: the profile (multi-threaded TCG: windows and histories see
# more of the load per minute), then the overhead under -icount, where
# guest time counts instructions and repeats: none, the hooks alone
# (target=all sampler=off history=0), target=all at its defaults and the
# profile's top types by name.  Tables and flow graphs (SVG) land in
# build/case-memcached/.  Some 25 minutes at the defaults.
#
#   scripts/case-memcached.sh [-k KERNEL] [-p SETS] [-n SETS] [-r ROUNDS] [-t TOP]
#   -p  sets per client of the profile (default 300000)
#   -n  UDP sets per client of each overhead run, then a quarter as many
#       over TCP (default 100000)
#   -r  rounds of the overhead runs (default 3; the median is shown)
#   -t  top types of the whole-kernel report watched by name (default 4)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
np=300000
n=100000
types=4
rounds=3
while getopts k:p:n:r:t: o; do
	case $o in
	k) kernel=$OPTARG ;;
	p) np=$OPTARG ;;
	n) n=$OPTARG ;;
	r) rounds=$OPTARG ;;
	t) types=$OPTARG ;;
	*) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
out=$top/build/case-memcached
share=$top/build/vmshare
guest=$top/scripts/guest/case-memcached-guest.sh
"$top/scripts/vm.sh" -k "$kernel" -r debian -t 3600 "$guest" profile "$np" "$types"
targets=$(cat "$share/case-memcached/top-targets")
DPROF_ICOUNT=1 "$top/scripts/vm.sh" -k "$kernel" -r debian -t 3600 \
	"$guest" overhead "$n" "$rounds" "hooks:target=all sampler=off history=0" \
	"all:target=all" "top:target=$targets"
rm -rf "$out"
cp -r "$share/case-memcached" "$out"
for d in "$out"/flow-*.dot; do
	[ -e "$d" ] || continue
	dot -Tsvg -o "${d%.dot}.svg" "$d"
done
echo
cat "$out/table-6.1.txt" "$out/overhead.txt"
echo "reports, working set, tables and flow graphs (SVG) in $out"
