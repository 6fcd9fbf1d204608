#!/bin/sh
# Sharing on real kernel objects dprof did not make, against what the
# kernel source says.  kshare (selftests/progs/kshare.c) runs two threads
# pinned to CPUs 0 and 1 that take turns, so every step of one CPU
# follows a step of the other; offsets come from the guest's BTF, so the
# reasoning holds for 6.1 and 6.12 alike although struct file and struct
# sock are laid out differently in them.
#
# filp (struct file): CPU 0 opens a tmpfs file, the threads read() it in
# turns, CPU 0 closes it.  The threads share the fd table, so
# fdget_pos() -> __fget_light() sees files->count == 2 and takes a
# reference (atomic_long_inc_not_zero or get_file_rcu_many: a cmpxchg
# loop) that fput() drops (atomic_long_dec_and_test: lock dec); with two
# references, a regular file (FMODE_ATOMIC_POS) also takes f_pos_lock
# (mutex fast paths: lock cmpxchg on owner, both ways).  Hence
#   f_count            true sharing: each CPU's first access in read()
#                      follows the other CPU's fput;
#   f_pos_lock.owner   true sharing: mutex_lock follows the other CPU's
#                      mutex_unlock;
#   f_op               neither: read-only after open; vfs_read reads it
#                      after the same CPU's f_count cmpxchg, which has
#                      just brought the line (f_op and f_count share a
#                      line in both kernels), so it hits;
#   f_ep               neither: only __fput -> eventpoll_release reads it,
#                      on CPU 0, once per life.
# UDP (struct udp_sock, struct sock first): CPU 0 opens a receiving and a
# sending socket; in turns CPU 0 sends a datagram over loopback (the
# softirq runs on CPU 0: __udp_enqueue_schedule_skb reads and adds to
# sk_rmem_alloc, takes sk_receive_queue.lock) and CPU 1 receives it
# (__skb_recv_udp takes sk_receive_queue.lock to refill its reader queue,
# udp_rmem_release subtracts from sk_rmem_alloc); CPU 0 closes both.
#   sk_receive_queue.lock  true sharing: CPU 1's spin_lock follows
#                          CPU 0's spin_unlock;
#   sk_rmem_alloc          shared by both CPUs; which write CPU 0's
#                          atomic_read follows depends on the layout:
#                          __skb_recv_udp calls udp_skb_dequeue_lock_held
#                          -> udp_rmem_release (atomic_sub) inside
#                          sk_receive_queue.lock, so CPU 1's last write
#                          to the lock's line is spin_unlock.  Where the
#                          two share a line (6.1: 236 and 240) it is false
#                          sharing, invalidated by the lock; apart (6.12:
#                          188 and 192) true sharing, by the atomic_sub;
#   sk_wmem_alloc          neither: set by sk_alloc, taken by the sending
#                          socket's skb_set_owner_w and dropped by
#                          sock_wfree (loopback_xmit orphans the skb on
#                          the sending CPU) and sk_free: CPU 0 only;
#   sk_rcvbuf              neither: written once by sock_init_data, then
#                          only read: by the enqueue, right after the same
#                          CPU's read of sk_rmem_alloc, and by CPU 1's
#                          udp_rmem_release, whose first read in a life
#                          moves the line (classify's per-line table shows
#                          it moving in most lives) but is one access of
#                          some 60.
# Only receiving sockets share anything; sending ones add accesses that
# are not invalidations, which the 5% label threshold absorbs.
. ./functions.sh
trap cleanup_modules EXIT
btf=/sys/kernel/btf/vmlinux
[ -r $btf ] || skip "no $btf: the kernel has no BTF to find the fields with"
# The reasoning below is for the Debian kernels' layouts; lock debugging
# (make check-debug's lockdep) grows every lock and moves the fields.
[ -e /proc/lockdep ] &&
	skip "lockdep kernel: spinlocks carry debug fields, so struct file and struct sock are not laid out as this test reasons"
F_COUNT=$(kobj_offset file f_count.counter) F_LOCK=$(kobj_offset file f_pos_lock.owner.counter)
F_OP=$(kobj_offset file f_op) F_EP=$(kobj_offset file f_ep)
Q_LOCK=$(kobj_offset sock sk_receive_queue.lock.rlock.raw_lock.val.counter)
RMEM=$(kobj_offset sock sk_backlog.rmem_alloc.counter)
WMEM=$(kobj_offset sock sk_wmem_alloc.refs.counter) RCVBUF=$(kobj_offset sock sk_rcvbuf)
echo "struct file: f_count $F_COUNT f_pos_lock $F_LOCK f_op $F_OP f_ep $F_EP"
echo "struct sock: sk_receive_queue.lock $Q_LOCK sk_rmem_alloc $RMEM sk_wmem_alloc $WMEM sk_rcvbuf $RCVBUF"
for v in "$F_COUNT" "$F_LOCK" "$F_OP" "$F_EP" "$Q_LOCK" "$RMEM" "$WMEM" "$RCVBUF"; do
	[ -n "$v" ] || fail "a field was not found in the BTF"
done
[ $((F_OP / 64)) -eq $((F_COUNT / 64)) ] ||
	fail "f_op and f_count are no longer in one line: the reasoning for f_op does not hold"

dd if=/dev/zero of="$TMP/kshare-file" bs=1k count=64 2>/dev/null
kobj_record filp 8 "$F_COUNT,$F_LOCK,$F_OP,$F_EP" 4 file 300 20 "$TMP/kshare-file"
f=$TMP/filp.dprof
dprof-view classify "$f"
kobj_expect_field "$f" filp "$F_COUNT" true-sharing "$F_COUNT" f_count
kobj_expect_field "$f" filp "$F_LOCK" true-sharing "$F_LOCK" f_pos_lock
kobj_expect_field "$f" filp "$F_OP" neither - f_op
kobj_expect_field "$f" filp "$F_EP" neither - f_ep

kobj_record UDP 4 "$Q_LOCK,$RMEM,$WMEM,$RCVBUF" 12 udp 50 20
u=$TMP/UDP.dprof
dprof-view classify "$u"
rx=$(dprof-view histories --script -t UDP "$u" |
	awk '$1 == "access" && $4 == 1 && !h[$2]++ { n++ } END { print n + 0 }')
echo "receiving sockets watched: $rx"
[ "$rx" -ge 2 ] || fail "only $rx receiving sockets watched (CPU 1 touched them)"
kobj_expect_field "$u" UDP "$Q_LOCK" true-sharing "$Q_LOCK" sk_receive_queue.lock
if [ $((RMEM / 64)) -eq $((Q_LOCK / 64)) ]; then
	kobj_expect_field "$u" UDP "$RMEM" false-sharing "$Q_LOCK" sk_rmem_alloc
else
	kobj_expect_field "$u" UDP "$RMEM" true-sharing "$RMEM" sk_rmem_alloc
fi
kobj_expect_field "$u" UDP "$WMEM" neither - sk_wmem_alloc
kobj_expect_field "$u" UDP "$RCVBUF" neither - sk_rcvbuf
exit 0
