#!/bin/sh
# Install what building, testing and the demo need on Debian (bookworm).
# Idempotent: installs only what is missing.  Needs root (apt-get).
set -eu

pkgs="build-essential make gcc libc6-dev libbpf-dev libelf-dev zlib1g-dev
libcapstone-dev libdw-dev zstd binutils perl clang libclang-rt-14-dev
pkg-config qemu-system-x86 busybox-static cpio kmod xz-utils gzip graphviz
dwarves linux-image-amd64 linux-headers-amd64 linux-image-6.12-amd64
linux-headers-6.12-amd64"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run as root or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
