#!/bin/sh
# advise by hot path on the sockets the networking maintainers grouped
# (issue "Advice for long-lived objects", item 3): 6.1, before the
# groups, recorded under request/response over 16 long-lived loopback
# connections (tcp_rr; -u for UDP) with the operand sampler under
# -icount on one vCPU (fair ticks) and call chains; advise with the paths
# named by their entry functions, against 6.12's layout (its BTF), and
# scripts/fastpath-compare.py: dprof's groups member by member against
# 6.12's.
#
#   scripts/fastpath-kernel.sh [tcp|udp]...   (default: both)
#   tcp: struct tcp_sock, tx=tcp_sendmsg rx=tcp_v4_rcv,tcp_recvmsg
#   udp: struct sock (as -T UDP=sock), tx=udp_sendmsg rx=udp_rcv,udp_recvmsg
# Output in build/fastpath-kernel/: PROTO-rr.dprof, PROTO-advise.txt and
# .json, PROTO-against.txt, PROTO-compare.txt, PROTO-header.patch (the
# proposal as a patch of 6.1's header, compiled by
# scripts/check-advise-header.sh).  The module counts each
# path's entry functions (ops=) for the samples per operation.
# FASTPATH_REUSE=1 runs the views again on the recordings there.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/fastpath-kernel
view=$top/build/dprof-view
kver=$("$top/scripts/kernel.sh" 6.12)
kver61=$("$top/scripts/kernel.sh" 6.1)
[ $# -gt 0 ] || set -- tcp udp
mkdir -p "$out"
btf=$out/btf-$kver
[ -s "$btf" ] || "$top/scripts/kernel-btf.sh" "/boot/vmlinuz-$kver" "$btf"
for proto in "$@"; do
	case $proto in
	tcp) cache=TCP struct=tcp_sock as='' header=include/linux/tcp.h \
		paths="--path tx=tcp_sendmsg,tcp_sendmsg_locked --path rx=tcp_v4_rcv,tcp_v4_do_rcv,tcp_recvmsg" ;;
	udp) cache=UDP struct=sock as="-T UDP=sock" header=include/net/sock.h \
		paths="--path tx=udp_sendmsg --path rx=__udp4_lib_rcv,udp_rcv,udp_recvmsg" ;;
	*) echo "fastpath-kernel.sh: tcp or udp, not '$proto'" >&2; exit 2 ;;
	esac
	rec=$out/$proto-rr.dprof
	# FASTPATH_REUSE=1: the views again on the recording there, no guest.
	if [ "${FASTPATH_REUSE:-0}" != 1 ] || [ ! -s "$rec" ]; then
		DPROF_ICOUNT=1 DPROF_SMP=1 "$top/scripts/vm.sh" -k 6.1 -s "$out" -t 1500 \
			"$top/scripts/guest/fastpath-kernel-guest.sh" "$proto"
	fi
	# shellcheck disable=SC2086
	"$view" advise $as $paths "$rec" "$cache" | tee "$out/$proto-advise.txt"
	# shellcheck disable=SC2086
	"$view" advise --json $as $paths "$rec" "$cache" >"$out/$proto-advise.json"
	# shellcheck disable=SC2086
	"$view" advise $as $paths --against "$btf" "$rec" "$cache" \
		>"$out/$proto-against.txt" 2>&1 || true
	sed -n '/^lines a path touches/,$p' "$out/$proto-against.txt"
	"$view" layout --json --btf "$btf" "$struct" >"$out/$proto-layout-6.12.json"
	python3 "$top/scripts/fastpath-compare.py" "$out/$proto-advise.json" \
		"$out/$proto-layout-6.12.json" | tee "$out/$proto-compare.txt"
	# The proposal as a patch of 6.1's header, held to the compiler.
	# shellcheck disable=SC2086
	"$top/scripts/check-advise-header.sh" "$kver61" "$header" "$struct" \
		"$rec" "$cache" $as $paths
	cp "$top/build/check-advise-header/$struct/patch" "$out/$proto-header.patch"
done
