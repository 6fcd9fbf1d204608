#!/bin/sh
# The same answer twice (issue "The same answer twice", item 5): the
# struct file and UDP socket cases of test-kernel-objects.sh (the
# reasoning from the kernel source is there), each recorded five times.
# classify gives a label only where its 95% interval decides it, so:
#  - the fields the source makes certain are decided, the same, in every
#    run: f_count and f_pos_lock.owner true sharing (both written with
#    atomics by the two threads: fdget_pos()'s reference, the mutex
#    owner), sk_receive_queue.lock true sharing (CPU 1's spin_lock after
#    CPU 0's spin_unlock);
#  - no field gets two different decided labels across the runs, and no
#    decided label contradicts the source (f_op, f_ep, sk_wmem_alloc and
#    sk_rcvbuf are never labelled sharing); undecided is allowed there.
. ./functions.sh
trap cleanup_modules EXIT
[ -r /sys/kernel/btf/vmlinux ] || skip "no BTF to find the fields with"
[ -e /proc/lockdep ] && skip "lockdep kernel: the fields are not laid out as reasoned"
RUNS=5
F_COUNT=$(kobj_offset file f_count.counter)
F_LOCK=$(kobj_offset file f_pos_lock.owner.counter)
F_OP=$(kobj_offset file f_op) F_EP=$(kobj_offset file f_ep)
Q_LOCK=$(kobj_offset sock sk_receive_queue.lock.rlock.raw_lock.val.counter)
RMEM=$(kobj_offset sock sk_backlog.rmem_alloc.counter)
WMEM=$(kobj_offset sock sk_wmem_alloc.refs.counter)
RCVBUF=$(kobj_offset sock sk_rcvbuf)
dd if=/dev/zero of="$TMP/kshare-file" bs=1k count=64 2>/dev/null

# labels TARGET FIELD_OFFSETS...: one line "OFFSET LABEL" per field and run
: >"$TMP/labels"
run=1
while [ $run -le $RUNS ]; do
	KOBJ_OUT=$TMP/filp-$run.dprof kobj_record filp 8 \
		"$F_COUNT,$F_LOCK,$F_OP,$F_EP" 4 file 300 20 "$TMP/kshare-file"
	KOBJ_OUT=$TMP/UDP-$run.dprof kobj_record UDP 4 \
		"$Q_LOCK,$RMEM,$WMEM,$RCVBUF" 12 udp 50 20
	for o in $F_COUNT $F_LOCK $F_OP $F_EP; do
		set -- $(kobj_label "$TMP/filp-$run.dprof" filp $o)
		echo "filp $o $1 $run" >>"$TMP/labels"
	done
	for o in $Q_LOCK $RMEM $WMEM $RCVBUF; do
		set -- $(kobj_label "$TMP/UDP-$run.dprof" UDP $o)
		echo "UDP $o $1 $run" >>"$TMP/labels"
	done
	run=$((run + 1))
done
dprof-view classify -t filp "$TMP/filp-$RUNS.dprof"
dprof-view classify -t UDP "$TMP/UDP-$RUNS.dprof"
echo "labels per run (type offset label run):"
cat "$TMP/labels"

# decided TYPE OFFSET LABEL NAME: that label in every run
decided() {
	n=$(awk -v t="$1" -v o="$2" -v l="$3" '$1 == t && $2 == o && $3 == l' "$TMP/labels" | wc -l)
	[ "$n" -eq $RUNS ] || fail "$1 $4 (offset $2): $3 in $n of $RUNS runs"
	echo "ok: $1 $4 decided $3 in $n of $RUNS runs"
}
# never TYPE OFFSET NAME: no sharing label in any run
never() {
	bad=$(awk -v t="$1" -v o="$2" '$1 == t && $2 == o && $3 ~ /sharing/' "$TMP/labels" | wc -l)
	[ "$bad" -eq 0 ] || fail "$1 $3 (offset $2) labelled sharing in $bad runs"
	echo "ok: $1 $3 never labelled sharing"
}
decided filp "$F_COUNT" true-sharing f_count
decided filp "$F_LOCK" true-sharing f_pos_lock.owner
never filp "$F_OP" f_op
never filp "$F_EP" f_ep
decided UDP "$Q_LOCK" true-sharing sk_receive_queue.lock
never UDP "$WMEM" sk_wmem_alloc
never UDP "$RCVBUF" sk_rcvbuf
# Every field: at most one decided label across the runs.
awk '$3 != "undecided" && !seen[$1 " " $2 " " $3]++ { n[$1 " " $2]++ }
	END { for (f in n) if (n[f] > 1) { print f; bad = 1 } exit bad }' \
	"$TMP/labels" >"$TMP/flips" ||
	fail "decided labels differ between runs for: $(cat "$TMP/flips")"
echo "ok: no field got two different decided labels in $RUNS runs"
exit 0
