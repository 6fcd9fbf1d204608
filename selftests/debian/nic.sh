# The DProf thesis' memcached setup (§6.1) on a multi-queue NIC, for the
# Debian guest booted with scripts/vm.sh -n igb,virtio-net-pci: sourced by
# debian/test-nic-handoff.sh and scripts/guest/case-nic-guest.sh.
#
# The servers' NIC is QEMU's Intel 82576 (igb: a receive and a transmit
# queue per CPU, an MSI-X vector each); the clients' is a virtio-net NIC
# in a network namespace of its own, on the same QEMU hub and nothing
# else.  One memcached per CPU, pinned there, on UDP port 11211 + CPU.
# As the thesis configured its card, each server's requests arrive on its
# own CPU: queue q's vectors interrupt CPU q, the receive hash takes the
# UDP ports (ethtool rx-flow-hash udp4 sdfn), and each client flow's
# source port is one the hash puts on its server's queue, found by
# sending a request and seeing which queue's interrupt fired.  Transmit
# packet steering (XPS) is cleared, as the driver leaves it: the kernel
# then picks a transmit queue by hashing the flow (netdev_pick_tx ->
# skb_tx_hash), which is the cause the thesis found.  The clients' NIC is
# another driver, so that their transmit completions are not igb's.
#
# Addresses are link-local (169.254.57.0/24): the traffic never leaves
# the guest's hub.
NIC_SERVER=169.254.57.1
NIC_CLIENT=169.254.57.2
NIC_PORT=11211
NIC_NS=dprofcl
IP=/usr/bin/ip		# Debian's iproute2, not busybox's applet

# NIC_SRV, NIC_CLI: the igb and the virtio-net interfaces.
nic_find() {
	NIC_SRV="" NIC_CLI=""
	for n in /sys/class/net/*; do
		case $(basename "$(readlink "$n/device/driver" 2>/dev/null)" 2>/dev/null) in
		igb) NIC_SRV=${n##*/} ;;
		virtio_net) NIC_CLI=${n##*/} ;;
		esac
	done
	[ -n "$NIC_SRV" ] && [ -n "$NIC_CLI" ]
}

# The IRQ numbers of the server NIC's vectors named KIND (rx or tx), in
# queue order.
nic_irqs() {
	awk -v pre="$NIC_SRV-$1-" 'index($NF, pre) == 1 {
		q = substr($NF, length(pre) + 1); sub(":", "", $1); irq[q] = $1; n++ }
		END { for (q = 0; q < n; q++) print irq[q] }' /proc/interrupts
}

nic_queues() {
	ls -d "/sys/class/net/$NIC_SRV/queues/tx-"* | wc -l
}

# XPS: "on" maps CPU q to transmit queue q, "off" clears every map.
nic_xps() {
	q=0
	for t in /sys/class/net/"$NIC_SRV"/queues/tx-*; do
		q=${t##*tx-}
		if [ "$1" = on ] && [ "$q" -lt "$(nproc)" ]; then
			printf '%x\n' $((1 << q)) >"$t/xps_cpus"
		else
			echo 0 >"$t/xps_cpus"
		fi
	done
}

nic_setup() {
	nic_find || { echo "nic: no igb and virtio-net interfaces (vm.sh -n igb,virtio-net-pci)"; return 1; }
	$IP netns add "$NIC_NS" || return 1
	$IP link set "$NIC_CLI" netns "$NIC_NS" || return 1
	$IP addr add "$NIC_SERVER/24" dev "$NIC_SRV"
	$IP link set "$NIC_SRV" up
	$IP -n "$NIC_NS" link set lo up
	$IP -n "$NIC_NS" addr add "$NIC_CLIENT/24" dev "$NIC_CLI"
	$IP -n "$NIC_NS" link set "$NIC_CLI" up
	ethtool -N "$NIC_SRV" rx-flow-hash udp4 sdfn >/dev/null 2>&1
	# Up: the vectors exist now.  Queue q's two interrupt CPU q.
	i=0
	for irq in $(nic_irqs rx); do
		echo $((i % $(nproc))) >"/proc/irq/$irq/smp_affinity_list"
		i=$((i + 1))
	done
	i=0
	for irq in $(nic_irqs tx); do
		echo $((i % $(nproc))) >"/proc/irq/$irq/smp_affinity_list"
		i=$((i + 1))
	done
	nic_xps off
	i=0
	while [ "$i" -lt "$(nproc)" ]; do
		taskset -c "$i" memcached -u root -U $((NIC_PORT + i)) -p 0 -t 1 \
			-l "$NIC_SERVER" &
		i=$((i + 1))
	done
	# The link comes up and the servers answer.
	i=0
	while [ "$i" -lt 50 ]; do
		$IP netns exec "$NIC_NS" mc_udp -w 100 -I "$NIC_SRV-rx" \
			"$NIC_SERVER:$NIC_PORT" "$NIC_CLIENT:0" | grep -q rx && return 0
		sleep 0.2
		i=$((i + 1))
	done
	echo "nic: memcached does not answer over the NIC"
	return 1
}

# NIC_FLOWS_<cpu> (exported, for nic_load in another shell): FLOWS source
# addresses:ports whose requests the receive hash puts on that CPU's
# queue, for each CPU.
nic_steer() {
	flows=$1 cpu=0 base=20000
	while [ "$cpu" -lt "$(nproc)" ]; do
		got="" n=0 tries=0
		while [ "$n" -lt "$flows" ] && [ "$tries" -lt 8 ]; do
			cands=""
			for p in $(seq "$base" $((base + 31))); do cands="$cands $NIC_CLIENT:$p"; done
			base=$((base + 32))
			tries=$((tries + 1))
			# shellcheck disable=SC2086 # one word per flow
			for f in $($IP netns exec "$NIC_NS" mc_udp -w 200 -I "$NIC_SRV-rx" \
				"$NIC_SERVER:$((NIC_PORT + cpu))" $cands |
				awk -v q="$NIC_SRV-rx-$cpu" '$2 == q { print $1 }'); do
				[ "$n" -lt "$flows" ] || break
				got="$got $f"
				n=$((n + 1))
			done
		done
		[ "$n" -eq "$flows" ] || { echo "nic: $n of $flows flows found for CPU $cpu"; return 1; }
		eval "NIC_FLOWS_$cpu=\"$got\"; export NIC_FLOWS_$cpu"
		cpu=$((cpu + 1))
	done
}

# SECONDS of load: one client per server, pinned on the server's CPU (as
# the thesis' clients each asked the server on the core their packets
# reached).  Prints each client's line and the replies a second in all.
# NIC_WAIT_MS: how long a request waits for its reply before it is sent
# again (default 200; longer under the referee, which slows the guest).
nic_load() {
	cpu=0 pids=""
	while [ "$cpu" -lt "$(nproc)" ]; do
		eval "flows=\$NIC_FLOWS_$cpu"
		# shellcheck disable=SC2086,SC2154 # flows: one word each
		$IP netns exec "$NIC_NS" mc_udp -c "$cpu" -d "$1" -w "${NIC_WAIT_MS:-200}" \
			"$NIC_SERVER:$((NIC_PORT + cpu))" $flows >"/tmp/nic-load.$cpu" &
		pids="$pids $!"
		cpu=$((cpu + 1))
	done
	# shellcheck disable=SC2086
	wait $pids
	cat /tmp/nic-load.*
	awk '{ n += $(NF - 1) } END { printf "nic: %.0f replies/s in all\n", n }' /tmp/nic-load.*
	rm -f /tmp/nic-load.*
}

# What serves what: queues, their vectors' CPUs, XPS, the receive hash.
nic_show() {
	echo "nic: $NIC_SRV ($(ethtool -i "$NIC_SRV" | awk '$1 == "driver:" { print $2 }'), $(nic_queues) queue pairs), clients on $NIC_CLI in netns $NIC_NS"
	q=0
	for irq in $(nic_irqs rx); do
		tx=$(nic_irqs tx | sed -n "$((q + 1))p")
		printf 'nic: queue %d: rx irq %s on CPU %s, tx irq %s on CPU %s, xps_cpus %s\n' \
			"$q" "$irq" "$(cat "/proc/irq/$irq/effective_affinity_list")" \
			"$tx" "$(cat "/proc/irq/$tx/effective_affinity_list")" \
			"$(cat "/sys/class/net/$NIC_SRV/queues/tx-$q/xps_cpus")"
		q=$((q + 1))
	done
	echo "nic: receive hash of UDP: $(ethtool -n "$NIC_SRV" rx-flow-hash udp4 | sed -n '2,$p' | tr '\n' ' ' | sed 's/ *$//')"
}

# The setup's own answer to what dprof measures: how many flows' replies
# the kernel transmits on a queue whose completion interrupt runs on
# another CPU than their server's.  Each flow sends one request; the
# transmit queue whose interrupt count grew is the reply's (mc_udp -I).
# Prints "MOVED FLOWS".
nic_tx_truth() {
	cpu=0
	while [ "$cpu" -lt "$(nproc)" ]; do
		eval "flows=\$NIC_FLOWS_$cpu"
		# shellcheck disable=SC2086 # one word per flow
		$IP netns exec "$NIC_NS" mc_udp -w 200 -I "$NIC_SRV-tx" \
			"$NIC_SERVER:$((NIC_PORT + cpu))" $flows | sed "s/^/$cpu /"
		cpu=$((cpu + 1))
	done | awk -v pre="$NIC_SRV-tx-" '{ n++; q = $3; sub(pre, "", q)
		if (q != $1) moved++ } END { print moved + 0, n + 0 }'
}

# sk_buff's len, head and data as this kernel lays them out (its BTF):
# igb_xmit_frame_ring() reads the three on every transmit, so skbuff
# histories on them all show it.  Comma-separated, for history_offsets=.
nic_skb_offsets() {
	for f in len head data; do
		dprof-view layout --btf /sys/kernel/btf/vmlinux sk_buff |
			awk -v f="$f" '$3 == f { print $1; exit }'
	done | paste -sd,
}

# From a recording's skbuff histories: "MOVED SENT", the skbuffs igb
# transmitted (an access in igb_xmit_frame_ring()) and how many of them
# the transmit completion freed (the first napi_consume_skb() after it)
# on another CPU than the one that allocated them.  Not the history's
# last CPU: napi_consume_skb() puts the skbuff in its CPU's NAPI cache,
# and the next receive there builds its skbuff in the same slab object
# (__napi_build_skb), so the slab's free, where a history ends, comes
# one use later.
nic_handoffs() {
	dprof-view histories --script -t skbuff_head_cache "$1" | awk '
		$1 == "history" { alloc[$2] = $7 }
		$1 == "access" && $9 ~ /^igb_xmit_frame_ring\+/ { sent[$2] = 1 }
		$1 == "access" && ($2 in sent) && !($2 in done) && $9 ~ /^napi_consume_skb\+/ { done[$2] = $4 }
		END { for (h in done) { n++; if (done[h] != alloc[h]) moved++ }
			print moved + 0, n + 0 }'
}
