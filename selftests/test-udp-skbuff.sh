#!/bin/sh
# Real kernel objects: UDP datagrams over loopback from a process on CPU 0
# to one on CPU 1.  Each datagram needs an sk_buff from skbuff_head_cache
# allocated by the sender, so the recording must hold at least as many
# skbuff allocations on CPU 0 as datagrams were sent: the exact address
# set (track_one_in=1).  Then the default, rate-capped sampled set: a
# flood of 52,000 datagrams a second is over track_max_rate (2048
# allocations a second per CPU), so the module must raise track_one_in
# for the rate, record fewer skbuffs than datagrams but some, and the
# views must say that their objects are a sample.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/udp.dprof
packets=3000

load_mod dprof target=skbuff track_one_in=1
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

packets=30000
load_mod dprof target=skbuff
dprof-view record -o "$out" -- udp_flood -s 0 -r 1 -n $packets >"$TMP/udp.log" ||
	fail "record/udp_flood failed: $(cat $TMP/udp.log)"
cat "$TMP/udp.log"
line=$(grep '^track_one_in:' /sys/kernel/debug/dprof/status)
echo "$line"
one_in=$(echo "$line" | awk '{ print $2 }')
rate_raises=$(echo "$line" | sed -n 's/.*(\([0-9]*\) for the allocation rate.*/\1/p')
[ "${one_in:-1}" -gt 1 ] && [ "${rate_raises:-0}" -ge 1 ] ||
	fail "track_one_in not raised for the rate of $packets datagrams: $line"
dprof-view objects "$out" 2>"$TMP/objects.err"
set -- $(objects_row "$out" skbuff_head_cache 0 2>/dev/null)
[ "${1:-0}" -gt 0 ] && [ "${1:-0}" -lt $packets ] ||
	fail "sampled set: cpu0 allocated ${1:-0} skbuffs for $packets datagrams at 1 in $one_in"
echo "ok: sampled set: track_one_in raised to $one_in for the rate; cpu0 recorded $1 skbuffs for $packets datagrams"
grep -q "objects are a sample: 1 in $one_in followed" "$TMP/objects.err" ||
	fail "objects does not say its objects are a sample: $(cat $TMP/objects.err)"
echo "ok: objects says its objects are a sample"
unload_mod dprof
exit 0
