#!/bin/sh
# Build dprof.ko and the test modules against one kernel's headers, in a
# build folder of their own so that builds for several kernels coexist.
#   scripts/build-module.sh <KDIR> <OUTDIR> [release]
# Fails on any compiler warning: the module must build warning-free.
# "release": dprof.ko alone, without the tests' knobs and files, as the
# DKMS and Debian packages build it (make install installs that one).
set -eu

kdir=$1
release=${3:-}
mkdir -p "$2"
out=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$kdir/Makefile" ] || {
	echo "build-module: no kernel build tree at '$kdir'; install the headers (apt-get install linux-headers-amd64) or set KDIR=" >&2
	exit 1
}
mkdir -p "$out/src" "$out/tests"
cp "$top/Kbuild" "$out/src/"
rm -rf "$out/src/module"
cp -r "$top/module" "$out/src/module"
cp "$top/selftests/modules/"*.c "$top/selftests/modules/Kbuild" "$out/tests/"
cp "$top/module/resolve.h" "$out/tests/"

log=$out/build.log
: >"$log"
# The tests' build: dprof.ko with its test knobs and files (Kbuild), as
# make check loads it; the packages build it without (dkms.conf).
tests=y dirs="$out/src $out/tests"
if [ "$release" = release ]; then
	tests=n dirs=$out/src
fi
for dir in $dirs; do
	if ! make -j"$(nproc)" -C "$kdir" M="$dir" W=1 DPROF_TESTS=$tests modules >>"$log" 2>&1; then
		cat "$log" >&2
		echo "build-module: build against $kdir failed" >&2
		exit 1
	fi
done
# make's own notes ("make[1]: warning: -j2 forced in submake" under
# make -j2) are about the jobserver, not the code.
if grep -v '^make\(\[[0-9]*\]\)*: ' "$log" | grep -q "warning:"; then
	grep -v '^make\(\[[0-9]*\]\)*: ' "$log" | grep -A4 "warning:" >&2
	echo "build-module: warnings against $kdir (must be warning-free)" >&2
	exit 1
fi
cp "$out/src/dprof.ko" "$out/"
[ "$release" = release ] || cp "$out/tests/"*.ko "$out/"
