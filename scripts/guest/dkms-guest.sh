#!/bin/sh
# make check, inside the guest (scripts/check-deb.sh): load the dprof.ko
# that DKMS built from the dprof-dkms package for this kernel, not the
# tree's own build, through dprof-view record -e --module for a second
# of UDP traffic (record unloads it), then installed where DKMS puts it
# and loaded by record -e through modprobe.
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

# As the package installs it: DKMS's module under this kernel's updates/
# (where DKMS puts it), depmod, and record -e finds it through modprobe
# dprof with no path at all.  busybox's depmod and modprobe do what
# kmod's do here.
mods=/lib/modules/$(uname -r)
mkdir -p "$mods/updates/dkms"
cp "$ko" "$mods/updates/dkms/dprof.ko"
depmod -a || { echo "dkms-guest: depmod failed"; exit 1; }
dprof-view record --no-progress -e skbuff -o /tmp/dkms-modprobe.dprof -- \
	udp_flood -s 0 -r 1 -d 1 -l 256 2>/tmp/dkms-modprobe.err ||
	{ cat /tmp/dkms-modprobe.err; echo "dkms-guest: record -e through modprobe failed"; exit 1; }
cat /tmp/dkms-modprobe.err
grep -q "loaded dprof (modprobe): target=skbuff" /tmp/dkms-modprobe.err ||
	{ echo "dkms-guest: record -e did not load dprof through modprobe"; exit 1; }
[ ! -d /sys/module/dprof ] || { echo "dkms-guest: record -e left dprof loaded"; exit 1; }
dprof-view info /tmp/dkms-modprobe.dprof | grep -q skbuff_head_cache ||
	{ echo "dkms-guest: the modprobe recording holds no skbuff_head_cache"; exit 1; }
echo "dkms-guest: ok"
