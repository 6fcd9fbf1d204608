#!/bin/sh
# Object access histories against ground truth.  dprof_sharing's objects
# are allocated on CPU 0, used by kthreads on CPUs 0 and 1 in ways fixed
# by its source (see the table in modules/dprof_sharing.c), handed over
# and freed on CPU 1.  For every complete history and every watched
# offset, the accesses per CPU and read/write must be exactly the table's,
# every access must fall inside the object's life, and the padding
# offsets must see nothing.
#
# Meanwhile other users of perf and of the debug registers come and go
# on both CPUs, as a user's tools would:
#  - a pinned perf event (dprof_workload's "pin").  On 6.1 the
#    breakpoints share each CPU's software-event context (one context per
#    task_ctx_nr before the 6.2 rework), so installing any pinned
#    software event there schedules them out and in again, and perf
#    writes its own copy of each breakpoint's address back into the
#    registers.  dprof points its breakpoints by writing the registers
#    itself, so it keeps perf's copy in step (compat.h); without that, a
#    reschedule while an object was watched put the parking address back
#    and the CPU went blind to it ("history 1 offset 0: cpu0 r/w cpu1 r/w
#    = 0 0 20 20, expected 20 20 20 20", 2 runs of 2 on 6.1).
#  - another kernel breakpoint (dprof_workload's "watch", a wide
#    read/write breakpoint on a variable of its own), made before dprof
#    loads, so that dprof's breakpoints get the registers above it, then
#    released and made again.  Each time it comes perf reinstalls every
#    breakpoint of the CPU in first-free order (ctx_resched(), on 6.1 and
#    6.12 alike), and dprof's move down: dprof must find its own again
#    before it writes one.  The other user's breakpoint must trap on its
#    own address only: exactly once per write of "poke".
. ./functions.sh
trap 'echo unpin >/sys/kernel/debug/dprof_workload/ctl 2>/dev/null; echo unwatch >/sys/kernel/debug/dprof_workload/ctl 2>/dev/null; cleanup_modules' EXIT
out=$TMP/truth.dprof
iters=20
# offset: expected "cpu0_reads cpu0_writes cpu1_reads cpu1_writes"
expect() {
	case $1 in
	0) echo "$iters $iters $iters $iters" ;;
	64) echo "0 $iters 0 0" ;;
	72) echo "0 0 0 $iters" ;;
	128) echo "$iters 1 $iters 0" ;;
	192) echo "$iters $((iters + 1)) 0 0" ;;
	256) echo "0 1 1 0" ;;
	*) echo "0 0 0 0" ;;	# padding
	esac
}

load_mod dprof_sharing
load_mod dprof_workload
wl watch
load_mod dprof target=dprof_sharing history_offsets=0,64,72,128,192,256,8,264
# Rounds in batches until 12 histories are complete: three rounds of the
# four-pair plan (or 60 batches).
cat >"$TMP/truth-run.sh" <<'EOS'
iters=$1
. /selftests/functions.sh
# Pinned events on both CPUs, and the other breakpoint, made and
# released over and over meanwhile, so that some land while an object is
# watched; the breakpoint poked on both CPUs while it is there.
(
	while [ ! -e "$TMPDIR/stop-pins" ]; do
		echo "pin 0" >$WL_DIR/ctl && echo "pin 1" >$WL_DIR/ctl &&
			echo unpin >$WL_DIR/ctl || exit 1
		echo unwatch >$WL_DIR/ctl && echo watch >$WL_DIR/ctl &&
			echo "poke 5 0" >$WL_DIR/ctl &&
			echo "poke 5 1" >$WL_DIR/ctl || exit 1
	done
) &
pins=$! rc=0
for i in $(seq 60); do
	echo "run 500 $iters 0 1" >/sys/kernel/debug/dprof_sharing/ctl || { rc=1; break; }
	[ "$(plan_count histories)" -ge 12 ] && break
done
touch "$TMPDIR/stop-pins"
wait $pins || rc=1
exit $rc
EOS
dprof-view record -o "$out" -- sh "$TMP/truth-run.sh" "$iters" ||
	fail "recording the sharing workload failed"
cat $DPROF_DIR/histories
expect_eq "the other breakpoint's traps, one per poke" \
	"$(wl_stat watch_traps)" "$(wl_stat pokes)"
expect_eq "bad hand-offs" "$(awk '$1 == "bad_handoffs" {print $2}' /sys/kernel/debug/dprof_sharing/stats)" 0
dprof-view histories -t dprof_sharing "$out" | head -20
dprof-view histories --script "$out" >"$TMP/truth.txt"

# One line per complete history and watched offset: id offset counts.
awk '
# history ID TARGET offsets A,B alloc_cpu C end_cpu C lifetime_ns N end R complete X dropped N
$1 == "history" && $13 == "freed" && $15 == 1 && $17 == 0 {
	ok[$2] = 1; life[$2] = $11
	n = split($5, o, ",")
	for (i = 1; i <= n; i++) { watched[$2 "," o[i]] = 1; order[++nw] = $2 "," o[i] }
}
$1 == "access" && ok[$2] {
	k = $2 "," $3
	c[k "," $4 "," $5]++
	if ($6 <= 0 || $6 >= life[$2]) bad++
}
END {
	for (i = 1; i <= nw; i++) {
		k = order[i]; split(k, p, ",")
		printf "%s %s %d %d %d %d\n", p[1], p[2], c[k ",0,read"] + 0,
			c[k ",0,write"] + 0, c[k ",1,read"] + 0, c[k ",1,write"] + 0
	}
	print "outside_life", bad + 0
}' "$TMP/truth.txt" >"$TMP/truth.counts"

expect_eq "accesses outside the object's life" \
	"$(awk '$1 == "outside_life" {print $2}' "$TMP/truth.counts")" 0
checked=0
covered=""
while read -r id off r0 w0 r1 w1; do
	[ "$id" = outside_life ] && continue
	want=$(expect "$off")
	[ "$r0 $w0 $r1 $w1" = "$want" ] ||
		fail "history $id offset $off: cpu0 r/w cpu1 r/w = $r0 $w0 $r1 $w1, expected $want"
	checked=$((checked + 1))
	case " $covered " in *" $off "*) ;; *) covered="$covered $off" ;; esac
done <"$TMP/truth.counts"
[ "$checked" -ge 24 ] || fail "only $checked watched offsets in complete histories"
echo "ok: $checked watched offsets in complete histories match the workload exactly"
for off in 0 64 72 128 192 256 8 264; do
	case " $covered " in
	*" $off "*) ;;
	*) fail "no complete history watched offset $off" ;;
	esac
done
echo "ok: every offset of the plan was covered"
unload_mod dprof
unload_mod dprof_sharing
echo unpin >$WL_DIR/ctl
wl unwatch
unload_mod dprof_workload
exit 0
