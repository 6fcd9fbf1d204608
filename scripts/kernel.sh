#!/bin/sh
# Resolve a kernel selector to an installed Debian kernel release.
#   scripts/kernel.sh 6.1      -> 6.1.0-56-amd64
#   scripts/kernel.sh 6.12     -> 6.12.117+deb12-amd64
#   scripts/kernel.sh <exact>  -> <exact> when /boot/vmlinuz-<exact> exists
# Prints the release, or an error naming the package to install.
set -eu

sel=${1:-6.1}
if [ -e "/boot/vmlinuz-$sel" ]; then
	echo "$sel"
	exit 0
fi
# Newest installed image whose release starts with "<sel>." or "<sel>-"
rel=$(ls /boot/vmlinuz-"$sel".* /boot/vmlinuz-"$sel"-* 2>/dev/null |
	sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1)
if [ -z "$rel" ]; then
	case "$sel" in
	6.1) pkg="linux-image-amd64 linux-headers-amd64" ;;
	6.12) pkg="linux-image-6.12-amd64 linux-headers-6.12-amd64" ;;
	*) pkg="linux-image-$sel" ;;
	esac
	echo "kernel.sh: no kernel '$sel' in /boot; install it: apt-get install $pkg (or run scripts/install-deps.sh)" >&2
	exit 1
fi
echo "$rel"
