#!/bin/sh
# The BTF of a bzImage, as /sys/kernel/btf/vmlinux has it, for the tools
# that read a kernel's types on the host (check-layout.sh, referee.sh).
#
#   scripts/kernel-btf.sh IMAGE OUT
#
# The compressed vmlinux starts at its compressor's magic (Debian: xz on
# 6.1, zstd on 6.12); its .BTF section is the raw BTF.
set -u
img=$1 out=$2
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for fmt in xz zstd; do
	case $fmt in
	xz) magic='\xfd7zXZ\x00' cmd="xz -dc" ;;
	zstd) magic='\x28\xb5\x2f\xfd' cmd="zstd -dcq" ;;
	esac
	off=$(perl -0777 -ne "print index(\$_, \"$magic\")" "$img")
	[ "$off" -ge 0 ] || continue
	tail -c +$((off + 1)) "$img" | $cmd >"$tmp" 2>/dev/null || true
	if objcopy -O binary --only-section=.BTF "$tmp" "$out" 2>/dev/null &&
		[ -s "$out" ]; then
		exit 0
	fi
done
echo "kernel-btf: no BTF found in $img" >&2
exit 1
