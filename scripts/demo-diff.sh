#!/bin/sh
# make demo-diff: peak vs drop-off of a TCP server in the QEMU guest, and
# the differential profiles (scripts/guest/demo-diff-guest.sh).  The recordings
# stay on the host in build/demo-diff.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${KERNEL:-6.1}
share=$top/build/demo-diff
mkdir -p "$share"
"$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 900 "$top/scripts/guest/demo-diff-guest.sh"
echo
echo "The recordings are on the host: $share/{peak,dropoff}-{1,2}.dprof"
echo "  $top/build/dprof-view diff -m lifetime $share/peak-1.dprof,$share/peak-2.dprof $share/dropoff-1.dprof,$share/dropoff-2.dprof"
