#!/bin/sh
# Real kernel objects: UDP datagrams over loopback from a process on CPU 0
# to one on CPU 1.  Each datagram needs an sk_buff from skbuff_head_cache
# allocated by the sender, so the recording must hold at least as many
# skbuff allocations on CPU 0 as datagrams were sent.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/udp.dprof
packets=3000

load_mod dprof target=skbuff
dprof-view record -o "$out" -- udp_flood -s 0 -r 1 -n $packets >"$TMP/udp.log" ||
	fail "record/udp_flood failed: $(cat $TMP/udp.log)"
cat "$TMP/udp.log"
dprof-view objects "$out"
set -- $(objects_row "$out" skbuff_head_cache 0)
[ "${1:-0}" -ge $packets ] || fail "cpu0 allocated ${1:-0} skbuffs for $packets datagrams"
echo "ok: cpu0 allocated $1 skbuffs for $packets datagrams"
dprof-view info "$out" | grep -q "btf: .*types" || fail "no kernel BTF in the recording"
dprof-view info "$out" | grep -q "symbols: *[1-9]" || fail "no kallsyms in the recording"
unload_mod dprof
exit 0
