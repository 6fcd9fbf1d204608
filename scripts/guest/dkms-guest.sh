#!/bin/sh
# make check, inside the guest (scripts/check-deb.sh): load the dprof.ko
# that DKMS built from the dprof-dkms package for this kernel, not the
# tree's own build, through dprof-view record -e --module, for a second
# of UDP traffic; record unloads it.
set -eu
ko=/host/dkms/$(uname -r)/dprof.ko
[ -f "$ko" ] || { echo "dkms-guest: no $ko: check-deb.sh did not copy DKMS's module"; exit 1; }
# record loads it (-e, --module) and unloads it at the end.
dprof-view record --no-progress -e skbuff --module "$ko" -o /tmp/dkms.dprof -- \
	udp_flood -s 0 -r 1 -d 1 -l 256
[ ! -d /sys/module/dprof ] || { echo "dkms-guest: record -e left dprof loaded"; exit 1; }
allocs=$(dprof-view objects /tmp/dkms.dprof | awk '
	/^[^ ]/ { cur = $1 }
	cur == "skbuff_head_cache" && $1 == "0" { print $2; exit }')
echo "skbuffs allocated on CPU 0 while recording: ${allocs:-none}"
[ "${allocs:-0}" -gt 0 ] || { echo "dkms-guest: DKMS's module recorded no skbuff"; exit 1; }
echo "dkms-guest: ok"
