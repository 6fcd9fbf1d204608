#!/bin/sh
# String instructions against ground truth (module/strop.h).  dprof_sharing's
# "strings" rounds: each iteration A (CPU 0) clears the object's first 256
# bytes with one rep stosq and B (CPU 1) copies them out with one rep
# movsq, in lockstep; A then writes the hand-off at 256 and B reads it.
# So in every complete history each watched offset below 256 has exactly
# ITERS accesses on CPU 0 and ITERS on CPU 1, the hand-off one on each,
# and the padding after it none.  The watched offsets are in groups of
# four inside the 256 bytes: on QEMU's TCG a rep instruction reports only
# the first watched offset it goes through, and before strop.c the other
# three of each group read 0.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/strings.dprof
iters=10
# offset: expected "cpu0 cpu1" accesses
expect() {
	if [ "$1" -lt 256 ]; then
		echo "$iters $iters"
	elif [ "$1" -eq 256 ]; then
		echo "1 1"
	else
		echo "0 0"
	fi
}

load_mod dprof_sharing
load_mod dprof target=dprof_sharing history_mode=set \
	history_offsets=0,8,64,248,16,136,192,264
cat >"$TMP/strings-run.sh" <<'EOS'
iters=$1
. /selftests/functions.sh
for i in $(seq 60); do
	echo "strings 200 $iters 0 1" >/sys/kernel/debug/dprof_sharing/ctl || exit 1
	[ "$(plan_count histories)" -ge 8 ] && exit 0
done
exit 0
EOS
dprof-view record -o "$out" -- sh "$TMP/strings-run.sh" "$iters" ||
	fail "recording the strings workload failed"
grep "hits:" $DPROF_DIR/histories
expect_eq "bad hand-offs" "$(awk '$1 == "bad_handoffs" {print $2}' /sys/kernel/debug/dprof_sharing/stats)" 0
dprof-view histories --script "$out" >"$TMP/strings.txt"

# One line per complete history and watched offset: id offset cpu0 cpu1.
awk '
# history ID TARGET offsets A,B alloc_cpu C end_cpu C lifetime_ns N end R complete X dropped N
$1 == "history" && $13 == "freed" && $15 == 1 && $17 == 0 {
	ok[$2] = 1
	n = split($5, o, ",")
	for (i = 1; i <= n; i++) order[++nw] = $2 "," o[i]
}
$1 == "access" && ok[$2] { c[$2 "," $3 "," $4]++ }
END {
	for (i = 1; i <= nw; i++) {
		split(order[i], p, ",")
		printf "%s %s %d %d\n", p[1], p[2], c[order[i] ",0"] + 0,
			c[order[i] ",1"] + 0
	}
}' "$TMP/strings.txt" >"$TMP/strings.counts"

checked=0
covered=""
while read -r id off c0 c1; do
	want=$(expect "$off")
	[ "$c0 $c1" = "$want" ] ||
		fail "history $id offset $off: cpu0 cpu1 = $c0 $c1 accesses, expected $want"
	checked=$((checked + 1))
	case " $covered " in *" $off "*) ;; *) covered="$covered $off" ;; esac
done <"$TMP/strings.counts"
echo "checked $checked offsets of complete histories; covered:$covered"
[ "$checked" -ge 8 ] || fail "too few complete histories: $checked offsets checked"
for off in 0 8 64 248 16 136 192 264; do
	case " $covered " in *" $off "*) ;; *) fail "offset $off never watched by a complete history" ;; esac
done
echo "ok: each rep stosq and rep movsq counted once at every watched offset it went through"
exit 0
