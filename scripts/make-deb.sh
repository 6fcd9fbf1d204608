#!/bin/sh
# make deb: the dprof-dkms and dprof-view Debian packages, built by
# dpkg-buildpackage from a copy of the tree in build/deb/ (so that the
# packages land there, not beside the checkout, and the build cannot touch
# the checkout's own build/).  Prints the .deb paths.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
ver_h=$(sed -n 's/^#define DPROF_VERSION[ \t]*"\(.*\)"/\1/p' "$top/module/uapi/dprof.h")
if [ "$version" != "$ver_h" ]; then
	echo "make-deb: debian/changelog says $version, module/uapi/dprof.h DPROF_VERSION $ver_h: make them agree" >&2
	exit 1
fi
out=$top/build/deb
src=$out/dprof-$version
rm -rf "$out"
mkdir -p "$src"
# The tracked files only: no build products, no editor leftovers.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 tar cf -) | tar xf - -C "$src"
else
	tar cf - -C "$top" --exclude=./build --exclude=./.git . | tar xf - -C "$src"
fi
(cd "$src" && dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	echo "make-deb: dpkg-buildpackage failed; the whole log: $out/build.log" >&2
	exit 1
}
ls "$out"/*.deb
