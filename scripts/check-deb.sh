#!/bin/sh
# make check: the Debian packages.  Builds them (make-deb.sh), holds them
# to lintian (no error), installs them on this machine, has DKMS build the
# module from dprof-dkms for the Debian 6.1 and 6.12 headers, loads each
# build in a guest of that kernel (guest/dkms-guest.sh), then purges the
# packages again.  Needs root (apt-get, dkms).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
share=$top/build/vmshare
debs=$("$top/scripts/make-deb.sh")
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
echo "packages: $(echo $debs | xargs -n1 basename | tr '\n' ' ')"
# lintian refuses nothing to root but says so on stderr.
lintian --fail-on error "$top"/build/deb/*.changes 2>&1 | grep -v 'root privileges' || true
lintian --fail-on error "$top"/build/deb/*.changes >/dev/null 2>&1 || {
	echo "check-deb: lintian found errors (above)" >&2
	exit 1
}
echo "lintian: no errors"

cleanup() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q dprof-dkms dprof-view >/dev/null 2>&1 || true
}
trap cleanup EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"$top/build/deb/dprof-dkms_${version}_all.deb" \
	"$top"/build/deb/dprof-view_"${version}"_*.deb >"$top/build/deb/install.log" 2>&1 || {
	tail -n 30 "$top/build/deb/install.log" >&2
	echo "check-deb: installing the packages failed (log: build/deb/install.log)" >&2
	exit 1
}
/usr/bin/dprof-view --version
man -w dprof-view >/dev/null || { echo "check-deb: no man page installed" >&2; exit 1; }
for k in 6.1 6.12; do
	kver=$("$top/scripts/kernel.sh" "$k")
	# --force: the package's postinst may have built it already
	# (autoinstall); this build is the test's own.
	dkms build --force -m dprof -v "$version" -k "$kver" >"$top/build/deb/dkms-$kver.log" 2>&1 || {
		tail -n 30 "$top/build/deb/dkms-$kver.log" >&2
		cat "/var/lib/dkms/dprof/$version/$kver/x86_64/log/make.log" >&2 2>/dev/null || true
		echo "check-deb: dkms build for $kver failed" >&2
		exit 1
	}
	if grep -q 'warning:' "/var/lib/dkms/dprof/$version/$kver/x86_64/log/make.log"; then
		grep -A3 'warning:' "/var/lib/dkms/dprof/$version/$kver/x86_64/log/make.log" >&2
		echo "check-deb: DKMS's build for $kver warned" >&2
		exit 1
	fi
	built=$(ls "/var/lib/dkms/dprof/$version/$kver/x86_64/module/"dprof.ko* | head -n 1)
	mkdir -p "$share/dkms/$kver"
	case $built in
	*.xz) xz -dc "$built" >"$share/dkms/$kver/dprof.ko" ;;
	*.zst) zstd -qdc "$built" >"$share/dkms/$kver/dprof.ko" ;;
	*.gz) gzip -dc "$built" >"$share/dkms/$kver/dprof.ko" ;;
	*) cp "$built" "$share/dkms/$kver/dprof.ko" ;;
	esac
	echo "dkms build -k $kver: $built"
	log=$top/build/deb/guest-$kver.log
	if ! "$top/scripts/vm.sh" -k "$k" -t 600 "$top/scripts/guest/dkms-guest.sh" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "check-deb: DKMS's module for $kver failed in the guest (log: $log)" >&2
		exit 1
	fi
	grep -E '^(loaded|skbuffs|dkms-guest)' "$log"
done
echo "check-deb: packages built, lintian-clean, installed; DKMS built dprof.ko for 6.1 and 6.12 and each loaded and recorded in its guest"
