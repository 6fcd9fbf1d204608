#!/bin/sh
# The referee (referee/oracle.c), a QEMU plugin that sees every access of
# the guest through a coherent cache model; Documentation/referee.rst.
#
#   scripts/referee.sh build            build/referee.so (and its header),
#                                       and build/insncount.so
#   scripts/referee.sh plugin KVER OUT  the -plugin argument for a guest of
#                                       kernel KVER (release, as uname -r)
#                                       writing JSON to OUT
#   scripts/referee.sh kallsyms KVER    the guest's /proc/kallsyms at
#                                       nokaslr (cached), its path
#
# The plugin API header is QEMU's own, of the version installed
# (include/qemu/qemu-plugin.h): taken from the source tarball Debian's
# archive serves for that package (apt-get source --download-only, with a
# deb-src entry for bookworm-backports on the mirror the machine uses; the
# .dsc is not needed) and kept in build/qemu-plugin/, never in the tree.
# The kernel's symbols: Debian's /boot/System.map is a stub (the real one
# is in the -dbg package), so one boot of the guest with nokaslr, without
# the plugin, copies its /proc/kallsyms to build/kallsyms-KVER; nokaslr
# keeps the addresses of every boot of that kernel the same.
# The struct offsets the plugin reads (struct kmem_cache's name and
# object_size, struct slab's slab_cache) come from the kernel's own BTF,
# in the vmlinux inside /boot/vmlinuz (scripts/kernel-btf.sh), read by
# dprof-view layout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
hdr=$build/qemu-plugin/qemu-plugin.h

fetch_header() {
	[ -f "$hdr" ] && return 0
	ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
		{ echo "referee: qemu-system-x86 is not installed (scripts/install-deps.sh)" >&2; exit 1; }
	mirror=$("$top/scripts/debian-mirror.sh" | head -n 1)
	[ -n "$mirror" ] || { echo "referee: no bookworm mirror in the apt sources" >&2; exit 1; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/archives/partial" "$tmp/src"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" >"$tmp/sources"
	# A private apt state: the machine's own lists are left alone.
	set -- -o Dir::Etc::sourcelist="$tmp/sources" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$tmp/apt/lists" -o Dir::Cache="$tmp/apt" \
		-o APT::Sandbox::User=root -q
	apt-get "$@" update >&2
	# The .dsc and Debian patches may be gone from the mirror; the
	# upstream tarball is all the header needs.
	(cd "$tmp/src" && apt-get "$@" source --download-only "qemu=$ver" >&2) || true
	orig=$(ls "$tmp"/src/qemu_*.orig.tar.* 2>/dev/null | head -n 1)
	[ -n "$orig" ] || { echo "referee: the mirror has no QEMU source for $ver" >&2; exit 1; }
	mkdir -p "$build/qemu-plugin"
	tar -xf "$orig" -C "$tmp/src" --wildcards '*/include/qemu/qemu-plugin.h'
	cp "$tmp"/src/qemu-*/include/qemu/qemu-plugin.h "$hdr.tmp"
	echo "$ver" >"$build/qemu-plugin/VERSION"
	mv "$hdr.tmp" "$hdr"
}

build_plugin() {
	fetch_header
	# Callbacks take QEMU's whole signature: unused parameters are normal.
	# shellcheck disable=SC2046
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
		$(pkg-config --cflags glib-2.0) -I"$build/qemu-plugin" \
		-o "$build/referee.so" "$top/referee/oracle.c" \
		"$top/referee/coherence.c" "$top/referee/objmap.c" \
		"$top/referee/insn.c" \
		"$top/referee/table.c" \
		$(pkg-config --libs glib-2.0)
	# The instruction counter of make bench-insns, on the same header.
	# shellcheck disable=SC2046
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
		$(pkg-config --cflags glib-2.0) -I"$build/qemu-plugin" \
		-o "$build/insncount.so" "$top/referee/insncount.c" \
		$(pkg-config --libs glib-2.0)
}

# The raw BTF of KVER's kernel (cached; scripts/kernel-btf.sh).
kernel_btf() {
	out=$build/btf-$1
	[ -s "$out" ] || "$top/scripts/kernel-btf.sh" "/boot/vmlinuz-$1" "$out" >&2 ||
		exit 1
	echo "$out"
}

# The guest's symbols at nokaslr (cached).
kallsyms() {
	out=$build/kallsyms-$1
	[ -s "$out" ] && { echo "$out"; return; }
	tmp=$(mktemp -d)
	printf '#!/bin/sh\ncat /proc/kallsyms >/host/kallsyms\n' >"$tmp/dump.sh"
	DPROF_APPEND=nokaslr "$top/scripts/vm.sh" -k "$1" -s "$tmp" -t 300 \
		"$tmp/dump.sh" >&2
	if ! grep -q " ksys_sync$" "$tmp/kallsyms" 2>/dev/null; then
		rm -rf "$tmp"
		echo "referee: could not read the guest's /proc/kallsyms" >&2
		exit 1
	fi
	mv "$tmp/kallsyms" "$out"
	rm -rf "$tmp"
	echo "$out"
}

# offset STRUCT MEMBER BTF: the member's byte offset (dprof-view layout).
offset() {
	"$build/dprof-view" layout --btf "$3" "$1" |
		awk -v f="$2" '$3 == f { print $1; exit }'
}

case ${1:-} in
build)
	build_plugin
	;;
plugin)
	[ $# -eq 3 ] || { echo "usage: scripts/referee.sh plugin KVER OUT" >&2; exit 2; }
	[ -f "$build/referee.so" ] || build_plugin
	[ -x "$build/dprof-view" ] || make -s -C "$top" view
	v=$(kernel_btf "$2")
	map=$(kallsyms "$2")
	name=$(offset kmem_cache name "$v")
	objsize=$(offset kmem_cache object_size "$v")
	slab=$(offset slab slab_cache "$v")
	[ -n "$name" ] && [ -n "$objsize" ] && [ -n "$slab" ] ||
		{ echo "referee: no BTF offsets for struct kmem_cache/slab in $v" >&2; exit 1; }
	echo "$build/referee.so,map=$map,kc_name=$name,kc_objsize=$objsize,slab_cache=$slab,out=$3"
	;;
kallsyms)
	[ $# -eq 2 ] || { echo "usage: scripts/referee.sh kallsyms KVER" >&2; exit 2; }
	kallsyms "$2"
	;;
*)
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
