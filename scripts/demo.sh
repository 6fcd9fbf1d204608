#!/bin/sh
# make demo: boot the reference kernel in QEMU, load dprof.ko on skbuffs,
# run real UDP traffic between two pinned processes, record, show.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${KERNEL:-6.1}
share=$top/build/demo
mkdir -p "$share"
"$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 900 "$top/scripts/demo-guest.sh"
echo
echo "The recording is on the host: $share/skbuff.dprof"
echo "  $top/build/dprof-view objects $share/skbuff.dprof"
echo "  $top/build/dprof-view histories $share/skbuff.dprof"
