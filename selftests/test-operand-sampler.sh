#!/bin/sh
# sampler=operand: the memory operand of the instruction a timer
# interrupt stopped before, typed by the slab page beneath it, with no
# allocation hook (target=all at its defaults where neither IBS nor PEBS
# is; history=1 or track_one_in= arms them, and auto then takes watch).
#
# Ground truth (selftests/modules/dprof_rank.c): a kthread on CPU 1 sweeps
# 8192 objects of each of dprof_rank_0..3 and kmalloc-32, incrementing
# each object's counter 16, 4, 2, 1 (and 8) times per visit, then once a
# per-CPU counter (this_cpu_inc: incq %gs:...) and once a global
# (RIP-relative).  Every increment is the same instructions (the pointer
# loaded from the objects' array, then lock incq on the object), so under
# -icount, where a tick falls at a uniformly random instruction of the
# CPU's busy time, a type's samples follow the increments it gets: among
# the four own caches 16/23, 4/23, 2/23, 1/23, and the per-CPU counter and
# the global each 5/16 of dprof_rank_0's (5 visits, one a type, for 16
# increments of a rank_0 object).  Each is checked within 3 binomial
# standard errors plus 2 % of the expected share.  Checked only under
# -icount: under multi-threaded TCG an interrupt is taken at the start of
# a translation block, and the loop's lock incq, mid-block, is never
# the instruction a tick stops before (make check runs this test in the
# -icount boot).
#
# Bad input first: a period outside 10 us .. 1 s.
. ./functions.sh
trap cleanup_modules EXIT

log_canary
expect_load_error 22 dprof target=all sampler=operand period=5000
dmesg_since_canary | grep -q "period=5000: sampler=operand takes ns between samples, 10000 to 1000000000" ||
	fail "no message for a bad operand period"
# The default: target=all without history=1 or track_one_in= is the
# operand sampler with no hook where neither IBS nor PEBS is (a TCG
# guest has neither); asking for lifetimes takes the watch sampler and
# its hooks.
load_mod dprof target=all
# Under -icount (make check runs this test there) the costs table
# judges the handlers' budgets; test-load checks the estimate's side.
if under_icount; then
	grep -q "counted exactly (QEMU -icount)" "$DPROF_DIR/status" ||
		fail "under -icount status does not judge the budgets: $(grep -A1 '^handler costs' "$DPROF_DIR/status" | tail -1)"
fi
if grep -q "^sampler: operand" "$DPROF_DIR/profile"; then
	grep -q "^hooks: no allocation or free hook" "$DPROF_DIR/status" ||
		fail "target=all at its defaults armed the allocation hooks: $(grep -A2 '^hooks' "$DPROF_DIR/status")"
	auto=operand
else
	auto=$(sed -n 's/^sampler: \([a-z]*\).*/\1/p' "$DPROF_DIR/profile")
	[ "$auto" = ibs ] || [ "$auto" = pebs ] ||
		fail "target=all at its defaults took sampler $auto where neither IBS nor PEBS is: $(head -n 1 $DPROF_DIR/profile)"
fi
unload_mod dprof
load_mod dprof target=all track_one_in=1
grep -q "tracepoint kmem_cache_alloc" "$DPROF_DIR/status" ||
	fail "target=all track_one_in=1 armed no allocation hook: $(grep -A2 '^hooks' "$DPROF_DIR/status")"
[ $auto != operand ] || grep -q "^sampler: watch" "$DPROF_DIR/profile" ||
	fail "target=all track_one_in=1 did not take the watch sampler: $(head -n 1 $DPROF_DIR/profile)"
unload_mod dprof
echo "ok: target=all at its defaults samples with $auto and no hook; track_one_in=1 arms the hooks"
[ $auto = operand ] || skip "this machine has $auto: the shares below are the operand sampler's, which auto does not take here"
under_icount ||
	skip "the operand sampler's shares need -icount (a tick under multi-threaded TCG stops at a translation block's start: see the top of this test)"

load_mod dprof_rank
RANK=/sys/kernel/debug/dprof_rank/stats
# history=1 asks for histories: the hooks come with them.
load_mod dprof target=all sampler=operand history=1
grep -q "tracepoint kmem_cache_alloc" "$DPROF_DIR/status" ||
	fail "history=1 under sampler=operand armed no allocation hook: $(grep -A2 '^hooks' "$DPROF_DIR/status")"
unload_mod dprof
# target=all at its defaults arms no allocation hook (checked above):
# the shares below are typed by the slab page alone.
load_mod dprof target=all
dprof-view record -o operand.data -d 15 >record.log 2>&1 || fail "record: $(cat record.log)"
cat "$RANK"
sed -n '1,/^type /p' "$DPROF_DIR/profile" | head -12
grep -E "^(dprof_rank_[0-3]|kmalloc-32) " "$DPROF_DIR/profile"
grep -E "^  hook |perf:sample" "$DPROF_DIR/status"
dprof-view report -i operand.data >report.txt 2>&1 || fail "report failed: $(head -n 3 report.txt)"
head -n 12 report.txt
grep -E "dprof_rank_(pcpu|global)" report.txt

# The samples per type, from the module's rows; the variables' from the
# report (dprof-view names them from the recorded kallsyms).
count() { awk -v t="$1" '$1 == t { print $2; exit }' "$DPROF_DIR/profile"; }
# report: rank type struct ws older samples ...
var_count() { awk -v v="$1" 'index($2, v) == 1 { print $6; exit }' report.txt; }
r0=$(count dprof_rank_0) r1=$(count dprof_rank_1) r2=$(count dprof_rank_2) r3=$(count dprof_rank_3)
echo "samples: dprof_rank_0 $r0, dprof_rank_1 $r1, dprof_rank_2 $r2, dprof_rank_3 $r3"
# The guest's busybox awk has no sqrt: Newton's, in root().
awk -v r0="${r0:-0}" -v r1="${r1:-0}" -v r2="${r2:-0}" -v r3="${r3:-0}" '
function root(x,  r, i) { r = x > 1 ? x : 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }
BEGIN {
	n = r0 + r1 + r2 + r3; bad = 0
	if (n < 400) { printf "FAIL: only %d samples on the own caches\n", n; exit 1 }
	split("16 4 2 1", rate); split(r0 " " r1 " " r2 " " r3, got)
	for (i = 1; i <= 4; i++) {
		want = rate[i] / 23; p = got[i] / n
		tol = 3 * root(want * (1 - want) / n) + 0.02
		d = p - want; if (d < 0) d = -d
		printf "dprof_rank_%d: %.3f of %d samples, expected %.3f +- %.3f\n", i - 1, p, n, want, tol
		if (d > tol) { print "FAIL: dprof_rank_" i - 1 " share out of tolerance"; bad = 1 }
	}
	exit bad
}' || fail "the own caches' shares (above)"

for v in dprof_rank_pcpu dprof_rank_global; do
	n=$(var_count "$v")
	[ -n "$n" ] || fail "report names no $v: the %gs or RIP-relative decode, or the naming, is wrong"
	awk -v v="$v" -v n="$n" -v r0="$r0" '
	function root(x,  r, i) { r = x > 1 ? x : 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }
	BEGIN {
		want = 5 / 16; tot = n + r0; p = n / r0
		# n / (n + r0) is binomial: its expected value 5/21
		q = n / tot; wq = 5 / 21
		tol = 3 * root(wq * (1 - wq) / tot) + 0.02
		d = q - wq; if (d < 0) d = -d
		printf "%s: %d samples, %.3f of dprof_rank_0'"'"'s, expected %.3f (share of the two %.3f, expected %.3f +- %.3f)\n", v, n, p, want, q, wq, tol
		exit d > tol
	}' || fail "$v's samples out of proportion to dprof_rank_0's"
done

# Typed: samples in slab memory typed to a cache and field.
awk '/^samples:/ { gsub(",", ""); for (i = 1; i <= NF; i++) { if ($i == "targets") t = $(i + 1); if ($i == "live") o = $(i + 1) }
	printf "typed: %d of %d samples in slab memory\n", t, t + o; exit (t + o == 0 || t < 0.95 * (t + o)) }' "$DPROF_DIR/profile" ||
	fail "fewer than 95 % of the slab samples typed"
unload_mod dprof
unload_mod dprof_rank
exit 0
