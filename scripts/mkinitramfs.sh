#!/bin/sh
# Build the test guest's initramfs for one kernel release.
#   scripts/mkinitramfs.sh <kernel release> <module dir> <output.cpio.gz>
# <module dir> holds dprof.ko and the test modules built for that kernel.
# Contents: static busybox, scripts/guest/guest-init.sh as /init, the 9p modules
# of the guest kernel (and what they depend on), dprof's modules in
# /lib/modules/dprof, dprof-view with its shared libraries, and the
# selftests with their programs.
set -eu

kver=$1
moddir=$2
out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
# Built again only when something it holds is newer than it: make check
# boots some forty guests from a handful of trees.
if [ -f "$out" ] && [ -z "$(find "$0" "$top/scripts/guest/guest-init.sh" \
	"$moddir" "$top/selftests" "$top/build/dprof-view" \
	"$top/build/selftests" "$(command -v busybox)" -newer "$out" \
	-print -quit 2>/dev/null)" ]; then
	exit 0
fi
stage=$(mktemp -d "${TMPDIR:-/tmp}/dprof-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

for tool in busybox cpio modinfo xz gzip; do
	command -v "$tool" >/dev/null ||
		{ echo "mkinitramfs: '$tool' missing; run scripts/install-deps.sh" >&2; exit 1; }
done

mkdir -p "$stage/bin" "$stage/sbin" "$stage/usr/bin" "$stage/usr/sbin" \
	"$stage/proc" "$stage/sys" "$stage/dev" "$stage/tmp" "$stage/host" \
	"$stage/lib/modules/boot" "$stage/lib/modules/dprof" \
	"$stage/usr/lib/dprof" "$stage/selftests"
cp "$(command -v busybox)" "$stage/bin/busybox"
for applet in $("$stage/bin/busybox" --list); do
	[ "$applet" = busybox ] || ln -s busybox "$stage/bin/$applet"
done
cp "$top/scripts/guest/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"

# Kernel modules the guest needs for the 9p share and the Debian guest's
# disk (virtio_blk, ext4 and the crc32c it asks for at mount), in
# dependency order.
order=""
add_module() {
	case " $order " in *" $1 "*) return ;; esac
	deps=$(modinfo -k "$kver" -F depends "$1" 2>/dev/null | tr ',' ' ')
	for dep in $deps; do add_module "$dep"; done
	file=$(modinfo -k "$kver" -n "$1")
	case "$file" in
	"(builtin)"|"") return ;;
	*.xz) xz -dc "$file" >"$stage/lib/modules/boot/$1.ko" ;;
	*) cp "$file" "$stage/lib/modules/boot/$1.ko" ;;
	esac
	order="$order $1"
}
# A kernel without /lib/modules/<release> is one built here (the debug
# kernel of make check-debug), with virtio and 9p built in.
if [ -d "/lib/modules/$kver" ]; then
	for mod in virtio_pci 9pnet_virtio 9p virtio_blk crc32c_generic ext4; do
		add_module "$mod"
	done
fi
for mod in $order; do echo "$mod.ko"; done >"$stage/lib/modules/boot/order"
# The NICs' drivers (vm.sh -n) and what they need, each list loaded by
# /init only when its device is there.
if [ -d "/lib/modules/$kver" ]; then
	for drv in igb virtio_net e1000e; do
		base=$order
		add_module "$drv"
		for mod in $order; do
			case " $base " in *" $mod "*) ;; *) echo "$mod.ko" ;; esac
		done >"$stage/lib/modules/boot/order-$drv"
	done
fi

cp "$moddir"/*.ko "$stage/lib/modules/dprof/"

# dprof-view and the shared libraries it links (glibc included).
if [ -x "$top/build/dprof-view" ]; then
	cp "$top/build/dprof-view" "$stage/usr/bin/"
	ldd "$top/build/dprof-view" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' |
	while read -r lib; do
		[ -f "$lib" ] && cp -L "$lib" "$stage/usr/lib/dprof/"
	done
	mkdir -p "$stage/lib64"
	cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"
fi

# Selftests: scripts and statically linked programs.
cp -r "$top/selftests/." "$stage/selftests/"
if [ -d "$top/build/selftests" ]; then
	cp "$top/build/selftests/"* "$stage/usr/bin/" 2>/dev/null || true
fi

# Written beside and renamed: two guests booting at once (on shares of
# their own) must never read a half-written image.
(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.$$"
mv -f "$out.$$" "$out"
