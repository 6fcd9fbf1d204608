#!/bin/sh
# Build the Debian guest's root file system: a bookworm userland from
# Debian's own packages, with the real servers of the thesis' case studies
# (memcached, Apache), Redis (a third server, judged by the referee) and
# their load generators, as an ext4 image that
# scripts/vm.sh -r debian attaches as a virtio disk.
#   scripts/debian-rootfs.sh            print the image's path, building it if needed
#   scripts/debian-rootfs.sh --force    rebuild it
# The image is cached in build/debian/ and rebuilt when the package list
# or this script changes.  Needs root (mmdebstrap, mkfs.ext4 -d keeps the
# tree's owners) and the mirror the machine's apt sources already use.
# dprof.ko, the test modules, dprof-view and the test programs are not in
# the image: the guest's init copies them in at boot (the disk is attached
# with snapshot=on, so the image itself never changes).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/debian
image=$out/rootfs.img
# The servers and clients of the case studies; the libraries dprof-view
# links; iproute2 for veth pairs and namespaces, kmod and procps for the
# scripts.
packages="memcached libmemcached-tools apache2 apache2-utils wrk
redis-server redis-tools
iproute2 ethtool kmod procps psmisc libbpf1 libdw1 libelf1 libcapstone4 libjson-c5 zlib1g"
image_mb=1536

key=$( { echo "$packages"; cat "$0"; } | sha256sum | cut -c1-16)
# One builder at a time (make check's two lanes may both ask for it):
# the second waits here, then finds the image made.
mkdir -p "$out"
exec 9>"$out/lock"
flock 9
if [ "${1:-}" != --force ] && [ -f "$image" ] &&
	[ "$(cat "$out/stamp" 2>/dev/null)" = "$key" ]; then
	echo "$image"
	exit 0
fi
for tool in mmdebstrap mkfs.ext4; do
	command -v "$tool" >/dev/null ||
		{ echo "debian-rootfs: '$tool' missing; run scripts/install-deps.sh" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] ||
	{ echo "debian-rootfs: building the Debian guest's image needs root (mmdebstrap, mkfs.ext4 -d)" >&2; exit 1; }
mirror=$("$top/scripts/debian-mirror.sh" | head -n 1)
[ -n "$mirror" ] ||
	{ echo "debian-rootfs: no bookworm entry in /etc/apt/sources*: cannot tell which mirror to build from" >&2; exit 1; }

mkdir -p "$out"
tree=$out/tree
rm -rf "$tree" "$image" "$out/stamp"
echo "debian-rootfs: building a bookworm tree with $(echo $packages | wc -w) packages and their dependencies" >&2
# shellcheck disable=SC2086
mmdebstrap --quiet --variant=apt --include="$(echo $packages | tr ' ' ',')" \
	--customize-hook='echo dprof-debian >"$1/etc/hostname"' \
	--customize-hook='rm -f "$1/etc/resolv.conf"' \
	bookworm "$tree" "$mirror" >&2
mkdir -p "$tree/host" "$tree/lib/modules/dprof" "$tree/usr/local/bin"
echo "debian-rootfs: $(du -sm "$tree" | cut -f1) MB tree; writing the ext4 image" >&2
mkfs.ext4 -q -F -L dprof-debian -d "$tree" "$image" "${image_mb}M" >&2
rm -rf "$tree"
echo "$key" >"$out/stamp"
echo "$image"
