#!/bin/sh
# advise --header's patch held to the compiler: the patch of a kernel
# header is applied to a copy of the installed headers' file, and a
# module built against those headers (the build recorded, Debian's
# config) asserts with BUILD_BUG_ON() that every member the proposal
# places lies at the proposed offset, and that the struct has the
# proposed size.  6.1 has no __cacheline_group_begin/end(): the check
# defines them as 6.8 does, zero-length arrays.
#
#   scripts/check-advise-header.sh KVER HEADER STRUCT RECORDING CACHE [ADVISE ARGS...]
#   e.g. scripts/check-advise-header.sh 6.1.0-57-amd64 include/linux/tcp.h \
#        tcp_sock build/fastpath-kernel/tcp-rr.dprof TCP --path tx=tcp_sendmsg ...
# Exit 0 when the patch applies and the module builds; the build's
# errors name a member out of place.
set -eu
[ $# -ge 5 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
kver=$1 header=$2 struct=$3 rec=$4 cache=$5
shift 5
top=$(cd "$(dirname "$0")/.." && pwd)
view=$top/build/dprof-view
kdir=/lib/modules/$kver/build
common=$(readlink -f "$kdir")
# Debian splits the headers: the arch-independent tree holds include/.
src=$common/$header
[ -f "$src" ] || src=$(readlink -f "$kdir/../$(basename "$common" | sed 's/-amd64$/-common/')")/$header
[ -f "$src" ] || { echo "check-advise-header: no $header under $kdir" >&2; exit 2; }
work=$top/build/check-advise-header/$struct
rm -rf "$work"
mkdir -p "$work/a/$(dirname "$header")"
cp "$src" "$work/a/$header"
rec=$(readlink -f "$rec")
# From the tree's top, as a developer would: a patch for patch -p1 there.
(cd "$work/a" && "$view" advise "$@" --header "$header" "$rec" "$cache") >"$work/patch" ||
	{ echo "check-advise-header: advise --header failed" >&2; exit 1; }
(cd "$work/a" && patch -s -p1 <"$work/patch") ||
	{ echo "check-advise-header: the patch does not apply" >&2; exit 1; }
cp "$src" "$work/orig.h"
"$view" advise --json "$@" --header "$work/orig.h" "$rec" "$cache" >"$work/advise.json"
python3 - "$work/advise.json" "$struct" "$header" "$work/a/$header" >"$work/check.c" <<'EOF'
import json, re, sys
a = json.load(open(sys.argv[1]))
struct, header = sys.argv[2], sys.argv[3]
text = open(sys.argv[4]).read()
# Bitfields ("name : 4", "name:1,") have no offsetof().
bits = set(re.findall(r'\b([A-Za-z_]\w*)\s*:\s*\d', text))
print('// SPDX-License-Identifier: GPL-2.0')
print('#define __cacheline_group_begin(G) __u8 __cacheline_group_begin__##G[0]')
print('#define __cacheline_group_end(G) __u8 __cacheline_group_end__##G[0]')
print('#include "%s"' % header)
print('#include <linux/module.h>')
print('#include <linux/build_bug.h>')
print('static int __init check_init(void)\n{')
n = 0
for m in a['members']:
    first = m['name'].split(',')[0].strip()
    # A bitfield's unit has no offsetof(): its size is checked with the rest.
    if first in bits:
        continue
    print('\tBUILD_BUG_ON(offsetof(struct %s, %s) != %d);' % (struct, first, m['new_offset']))
    n += 1
print('\tBUILD_BUG_ON(sizeof(struct %s) != %d);' % (struct, a['proposed_size']))
print('\treturn 0;\n}\nmodule_init(check_init);\nMODULE_LICENSE("GPL");')
print('/* %d members */' % n)
EOF
cat >"$work/Makefile" <<EOF
obj-m := check.o
ccflags-y := -I$work/a
EOF
if ! make -s -C "$kdir" M="$work" modules >"$work/build.log" 2>&1; then
	grep -E "error|BUILD_BUG" "$work/build.log" | head -n 20 >&2
	echo "check-advise-header: the patched $header does not build as proposed" >&2
	exit 1
fi
echo "ok: $header patched, struct $struct builds with $(grep -c BUILD_BUG_ON "$work/check.c") offsets and its size as proposed"
