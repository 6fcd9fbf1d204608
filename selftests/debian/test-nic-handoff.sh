#!/bin/sh
# The DProf thesis' memcached finding (§6.1, Figure 6-1) on a multi-queue
# NIC: skbuffs built on one CPU and freed on another at the transmit
# completion, because the kernel picks the transmit queue by hashing the
# flow; gone once transmit packet steering (XPS) maps each CPU to its own
# queue.  Needs the Debian guest with vm.sh -n igb,virtio-net-pci and 4
# vCPUs (DPROF_SMP=4); the setup is debian/nic.sh's, described there.
#
# From the kernel source (6.1; 6.12 the same): memcached on CPU i answers
# a request with sendmsg(), so udp_sendmsg() -> ip_make_skb() allocates
# the reply's skbuff on CPU i.  __dev_queue_xmit() -> netdev_core_pick_tx()
# -> netdev_pick_tx(): with no XPS map get_xps_queue() gives nothing and
# skb_tx_hash() takes queue reciprocal_scale(skb_get_hash(skb), 4), the
# flow's hash (addresses and ports) scaled to the queue count; the
# lockless pfifo_fast child of mq sends it from CPU i into igb's ring q.
# The NIC's completion interrupt for queue q runs on CPU q (nic.sh pins
# it there), whose NAPI poll, igb_clean_tx_irq(), frees the skbuff with
# napi_consume_skb().  So a reply's skbuff is freed on another CPU unless
# its flow hashes to the sender's own queue: 3 flows in 4 on average.
# memcached's socket is not connected, so sk_txhash is 0 and the hash is
# the flow dissector's, per flow.  With 16 flows per server (64 in all,
# each hashed independently), fewer than half go to another CPU's queue
# with probability 5e-6, fewer than 39 with 0.004 (binomial, p = 3/4),
# and flows carry about equal traffic (one request outstanding each);
# the histories (some 80 a run) sample those skbuffs.  With XPS on, get_xps_queue() returns queue
# i for a sender on CPU i: every reply is freed where it was built.
# So, of the skbuffs that igb transmitted (histories with an access in
# igb_xmit_frame_ring()), at least half are freed at the completion on
# another CPU than the one that allocated them before the fix, and at
# most 10 % after.
# The flow view must show the change of CPU at the transmit completion.
. ./functions.sh
. ./debian/nic.sh
trap 'pkill -x memcached; cleanup_modules' EXIT
command -v memcached >/dev/null || skip "not in the Debian guest (scripts/vm.sh -r debian)"
nic_find || skip "no igb and virtio-net NICs (scripts/vm.sh -n igb,virtio-net-pci)"
[ "$(nproc)" -ge 4 ] || skip "needs 4 vCPUs for 4 queues (DPROF_SMP=4), has $(nproc)"
FLOWS=16

nic_setup || fail "the NICs could not be set up"
nic_steer $FLOWS || fail "no client flows on each server's receive queue"
nic_show
set -- $(nic_tx_truth)
truth_moved=$1 truth_flows=$2
echo "the NIC: $truth_moved of $truth_flows flows' replies complete on another CPU's queue"
[ $((2 * truth_moved)) -ge "$truth_flows" ] ||
	fail "only $truth_moved of $truth_flows flows hash to another CPU's queue (expected 3 in 4)"

# Histories of skbuffs, one object at a time (arming and disarming the
# debug registers of 4 vCPUs takes some 15 a second under TCG), on the
# fields every transmit reads (nic_skb_offsets).
offsets=$(nic_skb_offsets)
echo "watched: sk_buff len, head, data at offsets $offsets"
run() {	# NAME: a recording of 8 s of load
	load_mod dprof target=skbuff sampler=off history_max_arms=400 \
		history_offsets="$offsets"
	dprof-view record --no-progress -o "$TMP/$1.dprof" -- \
		sh -c ". ./debian/nic.sh; nic_find; nic_load 8" \
		>"$TMP/$1.log" 2>&1 || fail "record ($1) failed: $(tail -n 5 "$TMP/$1.log")"
	unload_mod dprof
	grep -E '^(nic|mc_udp):' "$TMP/$1.log"
	set -- $(nic_handoffs "$TMP/$1.dprof")
	moved=$1 n=$2
}

# "M of N (P %, 95 % interval L-H %)": Wilson's interval (busybox's awk
# has no sqrt: Newton's).
share() {
	awk -v m="$1" -v n="$2" 'BEGIN { z = 1.96; p = m / n; d = 1 + z * z / n
		c = (p + z * z / (2 * n)) / d; v = p * (1 - p) / n + z * z / (4 * n * n)
		r = 1; for (i = 0; i < 40; i++) r = (r + v / r) / 2
		h = z * r / d
		lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1
		printf "%d of %d (%.0f %%, 95 %% interval %.0f-%.0f %%)", m, n, 100 * p, 100 * lo, 100 * hi }'
}

run before
echo "before: $(share "$moved" "$n") transmitted skbuffs freed on another CPU at completion"
[ "$n" -ge 40 ] || fail "only $n histories of transmitted skbuffs: too few to judge"
[ $((2 * moved)) -ge "$n" ] || fail "before XPS, $moved of $n transmitted skbuffs freed on another CPU, expected at least half"
dprof-view flow "$TMP/before.dprof" skbuff_head_cache | tee "$TMP/flow.txt"
# An edge (id => id count from => to) from the transmit path to what
# igb_clean_tx_irq's napi_consume_skb() runs: skb_release_all() and the
# socket's destructor.
awk '$2 == "=>" { sub(/^ *[0-9]+ => [0-9]+ +[0-9]+ +/, ""); split($0, e, " => ")
		if (e[1] ~ /xmit|^igb_|pick_tx|skb_set_owner_w/ &&
		    e[2] ~ /^(napi_consume_skb|skb_release_head_state|skb_release_data|sock_wfree)$/) ok = 1 }
	END { exit !ok }' "$TMP/flow.txt" ||
	fail "the flow view shows no change of CPU from the transmit path to its completion"
echo "ok: the hand-off at the transmit completion found ($moved of $n)"

nic_xps on
nic_show | grep xps_cpus
run after
echo "after: $(share "$moved" "$n") transmitted skbuffs freed on another CPU at completion"
[ "$n" -ge 40 ] || fail "only $n histories of transmitted skbuffs after XPS: too few to judge"
[ $((10 * moved)) -le "$n" ] || fail "with XPS, $moved of $n transmitted skbuffs still freed on another CPU, expected at most 10 %"
echo "ok: XPS keeps each reply on its CPU ($moved of $n moved)"
exit 0
