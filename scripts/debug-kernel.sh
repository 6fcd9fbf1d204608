#!/bin/sh
# Build a debug guest kernel from Debian's linux-source-6.1 for
# make check-debug, cached under build/debug-kernel/<hash of .config>/.
#
#   scripts/debug-kernel.sh        build if needed; print the build folder
#                                  (arch/x86/boot/bzImage, and the tree to
#                                  build modules against)
#
# The configuration is x86_64_defconfig plus what the guest and dprof need
# (virtio 9p for /host, kprobes, tracepoints, debugfs, BTF, memcg) plus the
# checkers: KASAN (generic, inline), lockdep (PROVE_LOCKING),
# DEBUG_ATOMIC_SLEEP, KFENCE, SLUB_DEBUG_ON (red zones, poisoning and
# tracking on every cache; slub_debug=- on the command line turns it off),
# kmemleak, and fault injection (FAILSLAB, FAIL_PAGE_ALLOC,
# FUNCTION_ERROR_INJECTION with fail_function, per-task fail-nth).
# Everything is built in: the guest loads only dprof and its test modules.
# About 45 minutes on two cores (46 measured).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src=/usr/src/linux-source-6.1.tar.xz
[ -f "$src" ] || {
	echo "debug-kernel.sh: $src missing; install it: apt-get install linux-source-6.1" >&2
	exit 1
}
base=$top/build/debug-kernel
tree=$base/linux-source-6.1
if [ ! -f "$base/unpacked" ]; then
	echo "debug-kernel.sh: unpacking $src" >&2
	rm -rf "$tree"
	mkdir -p "$base"
	tar -C "$base" -xJf "$src"
	touch "$base/unpacked"
fi
# Configure in a scratch folder; the build folder is named by the hash
# of the resulting .config, so an unchanged configuration is reused.
cfg=$base/config-scratch
rm -rf "$cfg"
mkdir -p "$cfg"
cd "$tree"
make -s O="$cfg" x86_64_defconfig >&2
make -s O="$cfg" kvm_guest.config >&2
# Options: -e enable, -d disable, --set-str a string.
scripts/config --file "$cfg/.config" \
	-e MODULES -e MODULE_UNLOAD \
	-e VIRTIO -e VIRTIO_PCI -e VIRTIO_NET -e NET_9P -e NET_9P_VIRTIO \
	-e 9P_FS -e 9P_FS_POSIX_ACL -e SERIAL_8250 -e SERIAL_8250_CONSOLE \
	-e BLK_DEV_INITRD -e RD_GZIP -e DEVTMPFS -e TMPFS \
	-e KPROBES -e KRETPROBES -e FTRACE -e FUNCTION_TRACER \
	-e DYNAMIC_FTRACE -e KPROBE_EVENTS -e DEBUG_FS -e SLUB \
	-e KALLSYMS -e KALLSYMS_ALL -e PERF_EVENTS -e HOTPLUG_CPU \
	-e MEMCG -e BPF_SYSCALL \
	-d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -e DEBUG_INFO_BTF \
	-e DEBUG_INFO_BTF_MODULES -d DEBUG_INFO_REDUCED \
	-e KASAN -e KASAN_GENERIC -e KASAN_INLINE \
	-e PROVE_LOCKING -e DEBUG_ATOMIC_SLEEP -e KFENCE \
	-e SLUB_DEBUG -e SLUB_DEBUG_ON -e DEBUG_KMEMLEAK \
	-d DEBUG_KMEMLEAK_DEFAULT_OFF -d DEBUG_KMEMLEAK_AUTO_SCAN \
	-e FAULT_INJECTION -e FAILSLAB -e FAIL_PAGE_ALLOC \
	-e FUNCTION_ERROR_INJECTION -e FAIL_FUNCTION \
	-e FAULT_INJECTION_DEBUG_FS \
	-d DRM -d SOUND -d USB_SUPPORT -d WLAN -d WIRELESS -d INPUT_JOYSTICK \
	-d DEBUG_INFO_SPLIT -d MODULE_SIG -d SYSTEM_TRUSTED_KEYRING \
	--set-str LOCALVERSION "-dprof-debug"
make -s O="$cfg" olddefconfig >&2
# olddefconfig drops what a dependency refuses: say so instead of
# building a kernel without a checker.
for opt in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP KFENCE SLUB_DEBUG_ON \
	DEBUG_KMEMLEAK FAILSLAB FAIL_PAGE_ALLOC FUNCTION_ERROR_INJECTION \
	FAIL_FUNCTION FAULT_INJECTION_DEBUG_FS KPROBES DEBUG_INFO_BTF \
	NET_9P_VIRTIO 9P_FS; do
	grep -q "^CONFIG_$opt=y" "$cfg/.config" || {
		echo "debug-kernel.sh: CONFIG_$opt did not stay enabled (see $cfg/.config)" >&2
		exit 1
	}
done
out=$base/$(sha256sum "$cfg/.config" | cut -c1-12)
if [ -f "$out/done" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$out"
cp "$cfg/.config" "$out/.config"
echo "debug-kernel.sh: building in $out (about 45 minutes on two cores)" >&2
make -s O="$out" -j"$(nproc)" bzImage modules >&2
touch "$out/done"
echo "$out"
