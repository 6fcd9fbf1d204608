#!/bin/sh
# Real kernel objects: during UDP from CPU 0 to CPU 1, skbuff histories
# must start at the allocator, end at a free, and show the CPU change
# between sender and receiver.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/skb-hist.dprof

load_mod dprof target=skbuff
dprof-view record -o "$out" -- udp_flood -s 0 -r 1 -d 3 >"$TMP/udp.log" ||
	fail "record/udp_flood failed: $(cat $TMP/udp.log)"
cat "$TMP/udp.log"
# The module's own account of those histories: armed at the allocation
# (the allocating CPU's registers, design.rst "Objects chosen at
# allocation"), so the arms counted there and the time since the first
# arm are not zero once a history completed.
h=$(cat $DPROF_DIR/histories)
echo "$h" | grep -E "^histories:|costs in cycles"
done_n=$(echo "$h" | sed -n 's/^histories: .*, \([0-9]*\) complete in .*/\1/p')
[ "${done_n:-0}" -gt 0 ] || fail "no complete history in the module's account"
echo "$h" | grep -q "^histories: .* complete in 0\.000 s" &&
	fail "histories completed in 0.000 s since the first arm"
arms=$(echo "$h" | sed -n 's/.* arm at allocation [0-9]* avg, [0-9]* max (\([0-9]*\)).*/\1/p')
[ "${arms:-0}" -ge "$done_n" ] ||
	fail "$done_n histories complete but ${arms:-no} arms at allocation counted"
echo "ok: $done_n histories complete, $arms arms at allocation counted"
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

# Hand-offs, from the kernel source: the softirq on CPU 0 queues each
# datagram with __skb_queue_tail() (__udp_enqueue_schedule_skb), writing
# skb->next and ->prev; the receiver on CPU 1 dequeues it with
# __skb_unlink() (__skb_try_recv_from_queue), writing them again, then
# frees it.  So the skb's first line (next at 0, prev at 8) goes from CPU
# 0 to CPU 1 in every life, and nothing writes it on CPU 0 after that:
# a history that watched next or prev sees it move once (classify's
# moved), and moves are its only misses besides first touches.  A life in
# which the receiver's path watched nothing of the line (a group without
# 0 or 8) does not count against it: moved is taken over the group of
# slots that shows it most.
next=$(kobj_offset sk_buff next)
[ -n "$next" ] || fail "sk_buff.next not found in the BTF"
skb_line=$((next / 64))
dprof-view classify -L -t skbuff_head_cache "$out"
set -- $(dprof-view classify --script -L -t skbuff_head_cache "$out" |
	awk -v l="$skb_line" '$1 == "line" && $3 == l')
[ $# -ge 14 ] || fail "no classification of the skb's first line"
echo "line $skb_line: $4, moved in ${13} of ${14} lives, invalidations $6 true $7 false"
[ "${14}" -ge 3 ] || skip "only ${14} histories watched the skb's first line: too few to judge"
[ $((${13} * 10)) -ge $((${14} * 9)) ] ||
	fail "the skb's first line moved in only ${13} of ${14} lives"
expect_eq "invalidations of the skb's first line" "$(($6 + $7))" 0
# five of five is the fewest whose Wilson interval is all above half
if [ "${14}" -ge 5 ]; then
	expect_eq "label of the skb's first line" "$4" handoff
fi
exit 0
