#!/bin/sh
# Real kernel objects: during UDP from CPU 0 to CPU 1, skbuff histories
# must start at the allocator, end at a free, and show the CPU change
# between sender and receiver.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/skb-hist.dprof

load_mod dprof target=skbuff
skip_if_quarantine
dprof-view record -o "$out" -- udp_flood -s 0 -r 1 -d 3 >"$TMP/udp.log" ||
	fail "record/udp_flood failed: $(cat $TMP/udp.log)"
cat "$TMP/udp.log"
dprof-view histories "$out" | head -12
dprof-view histories --script "$out" >"$TMP/skb.txt"
# Complete histories allocated on CPU 0 and freed on CPU 1 whose accesses
# come from both CPUs.
crossing=$(awk '
$1 == "history" && $13 == "freed" && $15 == 1 && $7 == 0 && $9 == 1 { h[$2] = 1 }
$1 == "access" && h[$2] { cpus[$2 "," $4] = 1 }
END { for (id in h) if (cpus[id ",0"] && cpus[id ",1"]) { print id; exit } }' "$TMP/skb.txt")
[ -n "$crossing" ] || fail "no complete skbuff history moved from CPU 0 to CPU 1"
dprof-view histories --id "$crossing" "$out" >"$TMP/one.txt"
head -40 "$TMP/one.txt"
grep -q "allocated on cpu 0 by __alloc_skb" "$TMP/one.txt" ||
	fail "history $crossing does not start at __alloc_skb"
grep -q "freed on cpu 1 by " "$TMP/one.txt" ||
	fail "history $crossing does not end with a free on CPU 1"
grep -q -- "-- cpu 0 -> 1 --" "$TMP/one.txt" ||
	fail "history $crossing shows no change from CPU 0 to CPU 1"
# Every ip of an access was mapped to the instruction that made it.
grep -q "ips could not be decoded\|cannot read kernel text" "$TMP/udp.log" &&
	fail "trap ips were not mapped to accessing instructions"
echo "ok: history $crossing runs from __alloc_skb on CPU 0 to a free on CPU 1"
unload_mod dprof
exit 0
