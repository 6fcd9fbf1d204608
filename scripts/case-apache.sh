#!/bin/sh
# make case-apache: the thesis' Apache case (§6.2) in the Debian guest;
# scripts/guest/case-apache-guest.sh says what runs and why.  Two boots:
# under -icount (guest time counts instructions and repeats), the sweep
# of ab's concurrency that finds the peak and the drop-off, the accept
# queue's length at the drop-off (the thesis' fix), and dprof's overhead
# at the peak; then, multi-threaded (windows and histories see more of
# the load per minute), the profile at the drop-off and the diff between
# two recordings at the peak and two at the drop-off.  Tables and
# recordings land in build/case-apache/.  Some 15 minutes at the defaults.
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
echo
for f in sweep fix overhead; do
	echo "== $f (under -icount)"
	cat "$out/$f.txt"
done
echo "== dprof-view diff -m lifetime, peak ($peak clients) against drop-off ($drop clients)"
cat "$out/diff-lifetime.txt"
echo "reports, diffs, working sets and recordings in $out"
