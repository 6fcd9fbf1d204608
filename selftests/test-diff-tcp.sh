#!/bin/sh
# Differential profile of a TCP server at its peak and at its drop-off,
# the thesis' Apache case (6.2) over loopback (progs/tcp_load.c).  The
# same server, which does 2 ms of work per connection, faces 2 clients
# (it keeps up: the accept queue stays about one deep) and 64 clients (it
# falls behind: the queue holds up to 64 complete connections).  The
# protocol is server-speaks-first, so what waits is known in advance: a
# server-side and a client-side TCP socket per queued connection, and no
# data skbuff.  Three recordings per side, so the error bars are the
# run-to-run spread (bootstrap over recordings, Mann-Whitney p).
# Expected, from that design alone:
#   - by live bytes (the working set of whole objects) and by lifetime,
#     the TCP socket type is first, its interval above 1;
#   - the TCP sockets grow more than skbuffs on both;
#   - misses and their latency are not measured under the watch sampler:
#     diff says so and fails, rather than showing numbers.
. ./functions.sh
trap cleanup_modules EXIT
runs=3
secs=2

load_mod dprof target=tcp,skbuff sampler=off history=0
record_side() {	# NAME CLIENTS
	for i in $(seq $runs); do
		dprof-view record -o "$TMP/$1-$i.dprof" -l "$1 $2 clients" \
			--load "$2" --work "@$TMP/work-$1-$i" -- \
			tcp_load -d $secs -c "$2" -b 128 -w 2000 \
			-o "$TMP/work-$1-$i" || fail "record of $1 failed"
	done
}
record_side peak 2
record_side dropoff 64
unload_mod dprof

side() { echo "$TMP/$1-1.dprof,$TMP/$1-2.dprof,$TMP/$1-3.dprof"; }
A=$(side peak) B=$(side dropoff)
dprof-view info "$TMP/dropoff-1.dprof" | grep -E "^ *(label|work|load)" ||
	fail "the recording lacks its label, work or load"

for m in live-bytes lifetime; do
	dprof-view diff -m $m --all "$A" "$B" || fail "diff -m $m failed"
	dprof-view diff -m $m --all --script "$A" "$B" >"$TMP/diff-$m.txt" ||
		fail "diff -m $m --script failed"
	first=$(awk -F'\t' '$1 == "row" && $2 == 1 { print $3 }' "$TMP/diff-$m.txt")
	expect_eq "$m: first bucket" "$first" TCP
	awk -F'\t' -v m=$m '$1 == "row" && $3 == "TCP" {
		if ($10 != "kept" || $7 <= 1) { print m ": TCP not kept above 1: " $0; exit 1 }
		found = 1 }
		END { exit !found }' "$TMP/diff-$m.txt" ||
		fail "$m: the TCP growth is not significant"
	tcp=$(awk -F'\t' '$1 == "row" && $3 == "TCP" { print $6 }' "$TMP/diff-$m.txt")
	skb=$(awk -F'\t' '$1 == "row" && $3 == "skbuff_head_cache" { print $6 }' "$TMP/diff-$m.txt")
	awk -v t="$tcp" -v s="${skb:-0}" 'BEGIN { exit !(t > s) }' ||
		fail "$m: TCP grew x$tcp, not more than skbuff x$skb"
	echo "ok: $m: TCP first, x$tcp (skbuff x${skb:-none})"
done

# The work each run reported weighs the difference (fewer connections
# served at the drop-off): the weighted method must find it.
dprof-view diff --weighted -m allocs "$A" "$B" || fail "diff --weighted failed"
dprof-view diff --saturation --limit 1000000 -m live-bytes "$A" "$B" ||
	fail "diff --saturation failed"

# No IBS/PEBS in a TCG guest: misses are not measured, and diff says so.
dprof-view diff -m latency "$A" "$B" 2>"$TMP/err"
expect_eq "diff -m latency without measured misses: exit status" $? 2
grep -q "no measured misses" "$TMP/err" ||
	fail "no clear message without measured misses: $(cat "$TMP/err")"
echo "ok: miss latency cannot be told by the watch sampler, and diff says so"
exit 0
