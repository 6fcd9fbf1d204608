#!/bin/sh
# dprof-view advise on real kernel objects (issue "From diagnosis to fix",
# item 4): struct file, the UDP and TCP sockets and sk_buff, recorded in
# the guest (scripts/guest/advise-kernel-guest.sh), each proposal with its
# what-if; and, where another kernel lays the struct out differently,
# the what-if of that layout (advise --against its BTF).
#
#   scripts/advise-kernel.sh [-k KERNEL] [-a OTHER_KERNEL]
#   -a  replay against this kernel's layout too (default: 6.12 when
#       recording on 6.1)
# Output in build/advise-kernel-KVER/: the recordings, NAME.txt and
# NAME.json per type, NAME-against.txt per type the other kernel holds.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
other=
while getopts k:a: o; do
	case $o in
	k) kernel=$OPTARG ;;
	a) other=$OPTARG ;;
	*) sed -n '8,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -n "$other" ] || { [ "$kernel" = 6.1 ] && other=6.12 || other=6.1; }
kver=$("$top/scripts/kernel.sh" "$kernel")
okver=$("$top/scripts/kernel.sh" "$other")
out=$top/build/advise-kernel-$kver
view=$top/build/dprof-view
rm -rf "$out"
mkdir -p "$out"
"$top/scripts/vm.sh" -k "$kernel" -s "$out" -t 1200 \
	"$top/scripts/guest/advise-kernel-guest.sh"
obtf=$out/btf-$okver
"$top/scripts/kernel-btf.sh" "/boot/vmlinuz-$okver" "$obtf"
# UDP and TCP also as struct sock (-T CACHE=sock): their fields sit in
# the nested inet_sock.sk, which advise moves only as one unit.
for t in file:filp udp:UDP udp-sock:UDP:sock tcp:TCP tcp-sock:TCP:sock \
	skbuff:skbuff_head_cache; do
	name=${t%%:*} rest=${t#*:}
	cache=${rest%%:*} as=
	[ "$rest" = "$cache" ] || as="-T $cache=${rest#*:}"
	rec=$out/${name%%-*}.dprof
	echo "== $cache${as:+ ($as)} ($(basename "$rec"))"
	# shellcheck disable=SC2086
	"$view" advise $as "$rec" "$cache" | tee "$out/$name.txt" |
		sed -n '/^lines holding/,/^alignment/p;/^what-if/,$p'
	# shellcheck disable=SC2086
	"$view" advise --json $as "$rec" "$cache" >"$out/$name.json"
	echo "== $cache against $okver's layout"
	# shellcheck disable=SC2086
	"$view" advise $as --against "$obtf" "$rec" "$cache" \
		>"$out/$name-against.txt" 2>&1 &&
		sed -n '/^what-if/,/^  working set/p' "$out/$name-against.txt" ||
		cat "$out/$name-against.txt"
done
