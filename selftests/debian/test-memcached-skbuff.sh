#!/bin/sh
# Real memcached (Debian's package, unmodified) on UDP in the Debian guest
# (scripts/vm.sh -r debian): every skbuff dprof records is accounted for by
# counters that owe nothing to dprof.
#
# memcached runs pinned to CPU 0; Debian's memcslap sends 20,000 UDP sets
# from CPU 1.  libmemcached sends UDP storage commands with noreply, so
# memcached answers none of them.  From the kernel source (6.1 and 6.12):
# - udp_sendmsg() on CPU 1 allocates one skbuff per datagram (the client's
#   CPU); loopback_xmit() -> netif_rx() queues it on that CPU's backlog
#   and the receive softirq runs there, on CPU 1;
# - udp_queue_rcv_skb() either queues it on memcached's socket, to be
#   freed by memcached's recvmsg() on CPU 0 (skb_consume_udp), or drops it
#   on CPU 1 when the receive buffer is full (RcvbufErrors in
#   /proc/net/snmp), freeing it there.
# So: the skbuffs allocated on CPU 1 are the datagrams sent; those freed
# on CPU 0 are the sets memcached processed (its own cmd_set counter);
# those freed on CPU 1 are the kernel's receive-buffer drops.  Each count
# must agree with its independent counter within 1 % (other traffic in an
# idle guest: none expected).  Counting every skbuff needs the exact
# address set (track_one_in=1): the default follows a sample of them.
. ./functions.sh
trap 'pkill -x memcached; cleanup_modules' EXIT
command -v memcached >/dev/null || skip "not in the Debian guest (scripts/vm.sh -r debian)"
N=20000

udp_field() {	# udp_field NAME: the Udp: counter of that name
	awk -v f="$1" '$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) k[i] = $i; h = 1; next }
		$1 == "Udp:" { for (i = 2; i <= NF; i++) if (k[i] == f) print $i }' /proc/net/snmp
}

taskset -c 0 memcached -u nobody -U 11211 -p 11211 -l 127.0.0.1 -t 1 &
loop_until 'memcstat --servers=127.0.0.1:11211 >/dev/null 2>&1' ||
	fail "memcached did not come up"
sets_before=$(memcstat --servers=127.0.0.1:11211 | awk '$1 == "cmd_set:" { print $2 }')
drops_before=$(udp_field RcvbufErrors)
load_mod dprof target=skbuff track_one_in=1
dprof-view record --no-progress -o "$TMP/mc.dprof" -- \
	taskset -c 1 memcslap -s 127.0.0.1:11211 --udp -t set -e $N -c 1 >/dev/null ||
	fail "record around memcslap failed"
unload_mod dprof
sets=$(( $(memcstat --servers=127.0.0.1:11211 | awk '$1 == "cmd_set:" { print $2 }') - sets_before ))
drops=$(( $(udp_field RcvbufErrors) - drops_before ))
dprof-view objects "$TMP/mc.dprof"
row0=$(objects_row "$TMP/mc.dprof" skbuff_head_cache 0)
row1=$(objects_row "$TMP/mc.dprof" skbuff_head_cache 1)
set -- $row0
alloc0=$1 free0=$2
set -- $row1
alloc1=$1 free1=$2
echo "memcached processed $sets sets, the kernel dropped $drops datagrams (RcvbufErrors)"
echo "dprof: allocated on CPU 1 $alloc1, on CPU 0 $alloc0; freed on CPU 0 $free0, on CPU 1 $free1"

# within PCT % of WANT (and at least one off allowed)
near() {
	awk -v got="$2" -v want="$3" -v what="$1" 'BEGIN {
		d = got - want; if (d < 0) d = -d
		if (d > 1 && d > want / 100) { print "FAIL: " what ": " got ", expected " want " within 1%"; exit 1 }
	}' || exit 1
}
near "skbuffs allocated on the client's CPU vs datagrams sent" "$alloc1" "$N"
near "skbuffs freed on memcached's CPU vs its cmd_set" "$free0" "$sets"
near "skbuffs freed on the client's CPU vs the kernel's receive-buffer drops" "$free1" "$drops"
[ "$alloc0" -le $((N / 100)) ] || fail "$alloc0 skbuffs allocated on memcached's CPU, which sends nothing (noreply)"
[ "$sets" -ge $((N / 10)) ] || fail "memcached processed only $sets of $N sets: nothing to check"
echo "ok: every skbuff of $N UDP sets accounted for by memcached's and the kernel's own counters"
exit 0
