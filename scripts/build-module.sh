#!/bin/sh
# Build dprof.ko and the test modules against one kernel's headers, in a
# build folder of their own so that builds for several kernels coexist.
#   scripts/build-module.sh <KDIR> <OUTDIR>
# Fails on any compiler warning: the module must build warning-free.
set -eu

kdir=$1
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
for dir in "$out/src" "$out/tests"; do
	if ! make -C "$kdir" M="$dir" W=1 modules >>"$log" 2>&1; then
		cat "$log" >&2
		echo "build-module: build against $kdir failed" >&2
		exit 1
	fi
done
if grep -q "warning:" "$log"; then
	grep -A4 "warning:" "$log" >&2
	echo "build-module: warnings against $kdir (must be warning-free)" >&2
	exit 1
fi
cp "$out/src/dprof.ko" "$out/tests/"*.ko "$out/"
