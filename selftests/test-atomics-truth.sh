#!/bin/sh
# Sharing through the kernel's own instructions, against ground truth.
# dprof_sharing's "atomics" rounds (table in modules/dprof_sharing.c):
# kthreads on CPUs 0 (A) and 1 (B), in lockstep, on one dprof_atomics
# object per round, every field on its own line:
#   refs           refcount_inc + refcount_dec (lock xadd): true sharing
#   cas_word       READ_ONCE + try_cmpxchg (lock cmpxchg): true sharing
#   xchg_word      xchg: true sharing
#   lock           spin_lock (lock cmpxchg) + spin_unlock (store): true
#   bits           bit_spin_lock (lock bts) + bit_spin_unlock (lock and):
#                  true sharing
#   plain_by_a     A's plain store, in the line of hammered_by_b, which B
#   hammered_by_b  increments twice per iteration (lock incl): false
#                  sharing, each invalidated by the other
#   private_by_a   atomic64_inc by A alone: neither
# Each access is one instruction, so per complete history and watched
# field the loads, stores and read-modify-writes per CPU are exactly the
# table's, as decoded from the instruction (one read/write breakpoint per
# offset: x86 cannot trap reads alone, and record decodes the kind from
# the instruction at each trap).  classify must give the classes above,
# paths one path per offset group (lockstep fixes the order), and the run
# prints how many complete histories each covered pair of offsets cost.
. ./functions.sh
trap cleanup_modules EXIT
iters=20
stats=/sys/kernel/debug/dprof_sharing/stats

load_mod dprof_sharing
off() { awk -v f="$1" '$1 == "atomics_offset" && $2 == f { print $3 }' $stats; }
REFS=$(off refs) CAS=$(off cas_word) XCHG=$(off xchg_word) LOCK=$(off lock)
BITS=$(off bits) PLAIN=$(off plain_by_a) HAMMER=$(off hammered_by_b)
PRIV=$(off private_by_a)
offsets=$REFS,$CAS,$XCHG,$LOCK,$BITS,$PLAIN,$HAMMER,$PRIV
echo "fields at $offsets"
[ -n "$PRIV" ] || fail "dprof_sharing's stats lack the atomics offsets"

# OFFSET -> "A_load A_store A_rmw B_load B_store B_rmw" per object
two=$((2 * iters))
expect() {
	case $1 in
	"$REFS") echo "0 1 $two 0 0 $two" ;;
	"$CAS") echo "$iters 0 $iters $iters 0 $iters" ;;
	"$XCHG") echo "0 0 $iters 0 0 $iters" ;;
	"$LOCK") echo "0 $((iters + 1)) $iters 0 $iters $iters" ;;
	"$BITS") echo "0 0 $two 0 0 $two" ;;
	"$PLAIN") echo "0 $iters 0 0 0 0" ;;
	"$HAMMER") echo "0 0 0 0 0 $two" ;;
	"$PRIV") echo "0 1 $iters 0 0 0" ;;
	*) echo "unexpected offset $1" ;;
	esac
}

cat >"$TMP/atomics-run.sh" <<'EOS'
iters=$1
. /selftests/functions.sh
for i in $(seq 40); do
	echo "atomics 20 $iters 0 1" >/sys/kernel/debug/dprof_sharing/ctl || exit 1
	[ "$(plan_count rounds)" -ge 2 ] && exit 0
done
exit 0
EOS

# check_mode: record, then check histories, classify and paths.
check_mode() {
	out=$TMP/atomics.dprof
	load_mod dprof target=dprof_atomics sampler=off history_mode=pairs \
		history_offsets=$offsets
	dprof-view record -o "$out" -- sh "$TMP/atomics-run.sh" "$iters" ||
		fail "recording the atomics workload failed"
	grep -E "debug registers|rounds complete" $DPROF_DIR/histories
	unload_mod dprof
	expect_eq "bad hand-offs" "$(awk '$1 == "bad_handoffs" {print $2}' $stats)" 0
	dprof-view info "$out" | grep -A2 "access kinds" | tee "$TMP/kinds.txt"

	# Per complete history and watched offset: kinds per CPU.
	dprof-view histories --script -t dprof_atomics "$out" >"$TMP/h.txt" ||
		fail "histories failed"
	awk '
	$1 == "history" && $13 == "freed" && $15 == 1 && $17 == 0 {
		ok[$2] = 1
		n = split($5, o, ",")
		for (i = 1; i <= n; i++) order[++nw] = $2 "," o[i]
	}
	$1 == "access" && ok[$2] { c[$2 "," $3 "," $4 "," $7]++ }
	END {
		for (i = 1; i <= nw; i++) {
			k = order[i]; split(k, p, ",")
			printf "%s %s %d %d %d %d %d %d\n", p[1], p[2],
				c[k ",0,load"], c[k ",0,store"], c[k ",0,rmw"],
				c[k ",1,load"], c[k ",1,store"], c[k ",1,rmw"]
		}
	}' "$TMP/h.txt" >"$TMP/counts"
	checked=0
	while read -r id o a0 a1 a2 b0 b1 b2; do
		want=$(expect "$o")
		[ "$a0 $a1 $a2 $b0 $b1 $b2" = "$want" ] ||
			fail "history $id offset $o: A load/store/rmw, B load/store/rmw = $a0 $a1 $a2 $b0 $b1 $b2, expected $want"
		checked=$((checked + 1))
	done <"$TMP/counts"
	[ "$checked" -ge 16 ] || fail "only $checked watched fields in complete histories"
	echo "ok: $checked watched fields in complete histories match the source exactly"
	awk '$1 == "access" && $7 == "unknown" { n++ } END { exit n > 0 }' "$TMP/h.txt" ||
		fail "accesses whose instruction was not decoded"

	# classify: the class of every field, and who invalidated it.
	dprof-view classify -t dprof_atomics "$out"
	dprof-view classify --script -t dprof_atomics "$out" >"$TMP/c.txt" ||
		fail "classify failed"
	for want in "$REFS true-sharing $REFS" "$CAS true-sharing $CAS" \
		"$XCHG true-sharing $XCHG" "$LOCK true-sharing $LOCK" \
		"$BITS true-sharing $BITS" "$PLAIN false-sharing $HAMMER" \
		"$HAMMER false-sharing $PLAIN" "$PRIV neither -"; do
		set -- $want
		got=$(awk -v o="$1" '$1 == "field" && $3 == o { print $4, $10 }' "$TMP/c.txt")
		expect_eq "offset $1 class, invalidated by" "$got" "$2 $3"
	done

	# paths: lockstep fixes the order, so one path per offset group.
	dprof-view paths -n 0 --script -t dprof_atomics "$out" >"$TMP/p.txt" ||
		fail "paths failed"
	groups=$(awk '$1 == "path" { n[$7]++ } END { for (g in n) print g, n[g] }' "$TMP/p.txt")
	echo "$groups" | awk '$2 != 1 { bad = 1 } END { exit bad }' ||
		fail "more than one path for an offset group: $groups"
	while read -r kw name rank count steps changes offs; do
		[ "$kw" = path ] || continue
		want=0
		for o in $(echo "$offs" | tr ',' ' '); do
			set -- $(expect "$o")
			want=$((want + $1 + $2 + $3 + $4 + $5 + $6))
		done
		expect_eq "path of $offs: steps" "$steps" "$want"
	done <"$TMP/p.txt"

	hists=$(awk '$1 == "history" && $15 == 1 { n++ } END { print n + 0 }' "$TMP/h.txt")
	pairs=$(awk '$1 == "history" && $15 == 1 { n = split($5, o, ","); p += n * (n - 1) / 2 }
		END { print p + 0 }' "$TMP/h.txt")
	echo "$hists complete histories watched $pairs offset pairs together: $(awk -v h="$hists" -v p="$pairs" 'BEGIN { printf "%.2f", p / h }') pairs per history"
}

check_mode
unload_mod dprof_sharing
exit 0
