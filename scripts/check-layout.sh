#!/bin/sh
# The field names dprof-view gives byte offsets agree with pahole's layout
# of the same debug data: from BTF (through libbpf) for structs of the
# reference kernels, taken from the kernel images in /boot (the .BTF
# section of the decompressed vmlinux), and from DWARF (through libdwfl)
# for structs in dprof's own modules (the test struct, and kernel structs
# with bitfields and anonymous unions that dprof.ko uses).  No guest.
#
# For every member pahole prints with a non-zero size, the name dprof-view
# gives the member's first byte must contain it (as a path component, among
# union alternatives); every byte of a hole pahole reports must be
# "(padding)" (holes of the struct itself, not of one union alternative);
# and the struct sizes must agree.
#
#   scripts/check-layout.sh [KERNEL...]      (default: 6.1 6.12)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
view=$top/build/dprof-view
work=${TMPDIR:-/tmp}/dprof-check-layout.$$
structs="sk_buff tcp_sock udp_sock file dentry task_struct"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
[ -x "$view" ] || make -s -C "$top" view
command -v pahole >/dev/null ||
	{ echo "check-layout: pahole missing; run scripts/install-deps.sh" >&2; exit 1; }

failed=0 checked=0
# compare LABEL STRUCT PAHOLE_FILE DPROF_VIEW_SOURCE_ARGS...
compare() {
	c_label=$1 c_struct=$2 c_src=$3
	shift 3
	pahole -C "$c_struct" "$c_src" >"$work/pahole" 2>/dev/null && [ -s "$work/pahole" ] ||
		{ echo "check-layout: pahole knows no struct $c_struct in $c_src" >&2; failed=1; return; }
	"$view" layout "$@" --bytes "$c_struct" >"$work/bytes" || { failed=1; return; }
		if ! awk -v kver="$c_label" -v s="$c_struct" '
			FNR == NR { name[$1] = $2; n = FNR; next }
			# Member lines end in /* OFF SIZE */ or /* OFF: BIT SIZE */
			match($0, /\/\* *[0-9]+(: *[0-9]+)? +[0-9]+ \*\/$/) {
				c = substr($0, RSTART + 2, RLENGTH - 4)
				gsub(/:/, " ", c); k = split(c, f, " ")
				off = f[1]; size = f[k]
				last_end = off + size
				# A bitfield: its storage unit, and the bit in it.
				if (k == 3) off += int(f[2] / 8)
				decl = substr($0, 1, RSTART - 1)
				if (decl ~ /^[ \t]*}/ || size == 0) next
				gsub(/ __attribute__\(\(.*\)\)/, "", decl)
				sub(/;[ \t]*$/, "", decl)
				if (decl ~ /\(\*/) {	# function pointer
					m = decl; sub(/.*\(\*/, "", m); sub(/\).*/, "", m)
				} else {
					k = split(decl, w, /[ \t*]+/); m = w[k]
				}
				sub(/\[.*/, "", m); sub(/:.*/, "", m)
				members++
				got = name[off]; ok = 0
				k = split(got, alt, "|")
				for (i = 1; i <= k; i++) {
					p = split(alt[i], comp, ".")
					for (j = 1; j <= p; j++) {
						sub(/\[.*/, "", comp[j])
						if (comp[j] == m) ok = 1
					}
				}
				if (!ok) {
					printf "%s %s: offset %d: pahole has %s, dprof-view says %s\n", kver, s, off, m, got
					bad++
				}
				next
			}
			# Holes of the struct itself (one tab deep); a hole inside
			# one alternative of a union is covered by the others.
			/^\t\/\* XXX [0-9]+ bytes? hole/ {
				match($0, /XXX [0-9]+/); h = substr($0, RSTART + 4, RLENGTH - 4)
				for (b = last_end; b < last_end + h; b++)
					if (name[b] != "(padding)") {
						printf "%s %s: byte %d is a hole for pahole, dprof-view says %s\n", kver, s, b, name[b]
						bad++
					}
				holes += h
			}
			/\/\* size: [0-9]+/ {
				match($0, /size: [0-9]+/); sz = substr($0, RSTART + 6, RLENGTH - 6)
				if (sz != n) { printf "%s %s: size %d for pahole, %d for dprof-view\n", kver, s, sz, n; bad++ }
			}
			END {
				printf "%s struct %s: %d members, %d hole bytes checked against pahole\n", kver, s, members, holes
				exit bad > 0 || members == 0
			}' "$work/bytes" "$work/pahole"; then
			failed=1
		fi
		checked=$((checked + 1))
}

for sel in ${*:-6.1 6.12}; do
	kver=$("$top/scripts/kernel.sh" "$sel")
	btf=$work/btf-$kver
	"$top/scripts/kernel-btf.sh" "/boot/vmlinuz-$kver" "$btf"
	for s in $structs; do
		compare "$kver BTF" "$s" "$btf" --btf "$btf"
	done
	mods=$top/build/mod-$kver
	make -s -C "$top" KVER="$kver" module >/dev/null
	compare "$kver DWARF" dprof_sharing_obj "$mods/dprof_sharing.ko" \
		--debug "$mods/dprof_sharing.ko"
	for s in perf_event_attr hw_perf_event perf_event; do
		compare "$kver DWARF" "$s" "$mods/dprof.ko" --debug "$mods/dprof.ko"
	done
done
[ "$failed" -eq 0 ] || { echo "check-layout: FAILED"; exit 1; }
echo "check-layout: $checked structs agree with pahole"
