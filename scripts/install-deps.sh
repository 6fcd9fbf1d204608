#!/bin/sh
# Install what building, testing and the demo need on Debian (bookworm).
# Idempotent: installs only what is missing.  Needs root (apt-get).
#   scripts/install-deps.sh [--debug]
#
# QEMU comes from bookworm-backports (10.x), not bookworm (7.2): 7.2's TCG
# reports no data watchpoint for atomic read-modify-write instructions under
# multi-threaded TCG and reports them as reads under single-threaded TCG,
# and it leaves stale text_poke_bp() int3s on 6.12 guests
# (Documentation/design.rst, "The test substrate").  The backports suite is
# enabled from the mirror the machine already uses; no host name is written
# here.
set -eu

pkgs="build-essential make gcc libc6-dev libbpf-dev libelf-dev zlib1g-dev
libcapstone-dev libdw-dev libjson-c-dev zstd binutils perl clang libclang-rt-14-dev
pkg-config busybox-static cpio kmod xz-utils gzip graphviz gnuplot-nox
dwarves linux-image-amd64 linux-headers-amd64 linux-image-6.12-amd64
linux-headers-6.12-amd64
golang-go golang-github-google-pprof-dev chromium python3
dpkg-dev debhelper dh-dkms dkms lintian
mmdebstrap e2fsprogs libglib2.0-dev"
# The export readers of scripts/check-exports.sh: pprof built from these Go
# sources, speedscope and playwright-core from npm with the machine's
# Node.js (installed from apt only where there is none).  make deb and
# scripts/check-deb.sh: the packaging tools, DKMS and lintian.
# scripts/debian-rootfs.sh: mmdebstrap and mkfs.ext4 for the Debian guest.
# scripts/referee.sh: glib for the QEMU plugin of the referee.
# make case-apache: gnuplot for its plots (SVG).
# --debug: also what building the debug kernel of make check-debug needs.
if [ "${1:-}" = --debug ]; then
	pkgs="$pkgs linux-source-6.1 flex bison bc libssl-dev"
fi
qemu_pkg=qemu-system-x86
qemu_min=10
backports_list=/etc/apt/sources.list.d/dprof-bookworm-backports.sources

# Major version of the installed QEMU package, 0 when there is none.
qemu_major() {
	v=$(dpkg-query -W -f='${Status} ${Version}' "$qemu_pkg" 2>/dev/null |
		sed -n 's/^install ok installed \(.*\)$/\1/p')
	v=${v#*:}
	echo "${v%%.*}" | grep -E '^[0-9]+$' || echo 0
}

# The URI of the Debian archive the machine's sources use for bookworm.
debian_mirror() {
	"$(dirname "$0")/debian-mirror.sh"
}

enable_backports() {
	if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	mirror=$(debian_mirror | head -n 1)
	if [ -z "$mirror" ]; then
		echo "install-deps: no bookworm entry in /etc/apt/sources*; add bookworm-backports by hand (QEMU >= $qemu_min is needed)" >&2
		return 1
	fi
	echo "install-deps: enabling bookworm-backports from the configured mirror"
	cat >"$backports_list" <<EOF
# Added by dprof's scripts/install-deps.sh for QEMU >= $qemu_min.
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
}

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
need_npm=0
command -v npm >/dev/null 2>&1 || need_npm=1
need_qemu=0
[ "$(qemu_major)" -ge "$qemu_min" ] || need_qemu=1
[ -z "$missing" ] && [ "$need_qemu" -eq 0 ] && [ "$need_npm" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing$([ "$need_qemu" -eq 1 ] && echo " $qemu_pkg (>= $qemu_min, bookworm-backports)"); run as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
[ "$need_qemu" -eq 0 ] || enable_backports
apt-get update -q
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
# Debian's nodejs comes without npm; NodeSource's has it.
if ! command -v npm >/dev/null 2>&1; then
	echo "install-deps: installing npm"
	apt-get install -y -q --no-install-recommends npm
fi
if [ "$need_qemu" -eq 1 ]; then
	echo "install-deps: installing $qemu_pkg from bookworm-backports"
	apt-get install -y -q --no-install-recommends -t bookworm-backports "$qemu_pkg"
	if [ "$(qemu_major)" -lt "$qemu_min" ]; then
		echo "install-deps: $qemu_pkg $(qemu_major).x installed, >= $qemu_min needed (bookworm-backports)" >&2
		exit 1
	fi
fi
