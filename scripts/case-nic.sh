#!/bin/sh
# make case-nic: the DProf thesis' memcached finding (§6.1, Figure 6-1)
# on a multi-queue NIC.  The Debian guest with 4 vCPUs, QEMU's Intel
# 82576 (igb: a queue pair per CPU, an MSI-X vector each) for the servers
# and a virtio-net NIC in a namespace for the clients, joined by one QEMU
# hub and nothing else; one memcached per CPU, each client flow steered
# to its server's receive queue, XPS cleared as the driver leaves it
# (selftests/debian/nic.sh).  Three kinds of boot:
#  1. the profile (multi-threaded TCG): skbuff histories before and after
#     XPS maps each CPU to its queue:
#     the flow around the CPU change, the skbuffs freed on another CPU at
#     the transmit completion, beside the NIC's own count of the flows
#     whose replies took another CPU's queue;
#  2. the referee (a QEMU plugin with a coherent cache model: TCG has no
#     caches) over the load alone, before and after: sharing misses per
#     reply by type (-R leaves it out, some minutes);
#  3. replies per guest second under -icount (guest time counts
#     instructions), XPS off and on in turn: what TCG can show of the
#     thesis' 57 % is the instructions a reply costs, not cache stalls;
#     then target=all at its defaults, where a tick falls at an exact
#     instruction: which types.
# Output in build/case-nic/: recordings, reports, flows (text, DOT, SVG),
# the referee's tables, and summary.txt, printed at the end.
#
#   scripts/case-nic.sh [-k KERNEL] [-d SECONDS] [-r ROUNDS] [-R]
#   -d  seconds of load per recording or round (default 10)
#   -r  rounds of the rate runs, XPS off and on each (default 3)
#   -R  no referee runs
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
secs=10
rounds=3
referee=1
while getopts k:d:r:R o; do
	case $o in
	k) kernel=$OPTARG ;;
	d) secs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	R) referee=0 ;;
	*) sed -n '25,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
out=$top/build/case-nic
share=$top/build/vmshare-nic
guest=$top/scripts/guest/case-nic-guest.sh
vm() {
	DPROF_SMP=4 "$top/scripts/vm.sh" -k "$kernel" -r debian -n igb,virtio-net-pci \
		-s "$share" -t 3600 "$@"
}
rm -rf "$share" "$out"
mkdir -p "$share"
echo "== profile: skbuff histories before and after XPS"
vm "$guest" profile "$secs"
if [ "$referee" = 1 ]; then
	kver=$("$top/scripts/kernel.sh" "$kernel")
	for side in before after; do
		echo "== the referee: the load alone, $side XPS"
		plugin=$("$top/scripts/referee.sh" plugin "$kver" "$share/case-nic/referee-$side.json")
		DPROF_PLUGIN=$plugin vm "$guest" load "$side" $((3 * secs))
	done
fi
echo "== replies per guest second under -icount, XPS off and on; target=all"
DPROF_ICOUNT=1 vm "$guest" rate "$secs" "$rounds"
cp -r "$share/case-nic" "$out"
for d in "$out"/*-flow.dot; do
	dot -Tsvg -o "${d%.dot}.svg" "$d"
done
python3 "$top/scripts/case-nic-summary.py" "$out" | tee "$out/summary.txt"
echo "recordings, reports, flows (text, DOT, SVG) and the referee's tables in $out"
