#!/bin/sh
# The recorder's own work is left out of the samples, and only its own.
#
# dprof-view record opens debugfs "events" first, then reads
# /proc/kallsyms (some 150,000 lines, each through vsnprintf into a
# seq_file buffer), the kernel's BTF, and writes the recording: on
# memcached under target=all the functions that format kallsyms took
# 38 % of the samples, and two of the four hottest slab types were its
# buffers (kmalloc-cg-1k: the kallsyms iterator; kmalloc-cg-4k: the
# seq_file buffer), work of the profiler, not of the workload.  dprof.ko leaves
# out a sample whose interrupt stopped the events reader's process in
# task context and counts it ("left out:" in profile).
#
# Ground truth: record A runs "sleep 1", so its recorder's own reads are
# almost all the kernel work in it: it must leave samples out.  Record B
# runs three "cat /proc/kallsyms", each the same kallsyms read as the
# recorder's but in another process: those must be kept.  B's recorder
# does what A's did, so B leaves out about what A left out, and B keeps
# at least as many samples as one recorder's read left out (three reads
# kept against one left out; the bound is a third of that, for the
# recorder's BTF copy and file writes, which the cats do not do).
# Under -icount (make check runs this test there) a tick falls at a
# uniform instruction, so the counts follow the instructions.
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof target=all period=100000
sampler=$(sed -n 's/^sampler: \([a-z]*\).*/\1/p' "$DPROF_DIR/profile")
[ "$sampler" = operand ] || [ "$sampler" = ibs ] || [ "$sampler" = pebs ] ||
	skip "target=all took sampler $sampler: the reader is left out of access samplers only"

left_out() { sed -n 's/^left out: \([0-9]*\) samples.*/\1/p' "$DPROF_DIR/profile"; }
kept() { sed -n 's/^samples: \([0-9]*\),.*/\1/p' "$DPROF_DIR/profile"; }

[ "$(left_out)" = 0 ] || fail "samples left out before any reader: $(left_out)"
k0=$(kept)
dprof-view record --no-progress -o "$TMP/a.dprof" -- sleep 1 2>"$TMP/a.err" ||
	fail "record A failed: $(cat "$TMP/a.err")"
a=$(left_out) ka=$(($(kept) - k0))
echo "record A (sleep 1): $a samples left out, $ka kept"
[ "$a" -gt 0 ] || fail "record A's own reads (kallsyms, BTF) left no sample out"

k1=$(kept)
dprof-view record --no-progress -o "$TMP/b.dprof" -- sh -c \
	'for i in 1 2 3; do cat /proc/kallsyms >/dev/null; done' 2>"$TMP/b.err" ||
	fail "record B failed: $(cat "$TMP/b.err")"
b=$(($(left_out) - a)) kb=$(($(kept) - k1))
echo "record B (3 x cat /proc/kallsyms): $b samples left out, $kb kept"
# The reader is cleared at its release: a read after it is kept.
cat /proc/kallsyms >/dev/null
[ "$(left_out)" = $((a + b)) ] ||
	fail "samples left out after the recorder closed: $(($(left_out) - a - b))"
[ "$b" -gt 0 ] || fail "record B's own reads left no sample out"
[ "$b" -le $((3 * a + 20)) ] && [ "$a" -le $((3 * b + 20)) ] ||
	fail "two recorders doing the same work left out $a and $b samples"
[ "$kb" -ge "$b" ] ||
	fail "the cats' kallsyms reads kept $kb samples, fewer than one recorder's read left out ($b): another process's samples were left out"
echo "ok: the recorder's own samples left out ($a, $b), another process's kallsyms reads kept ($kb)"

# The views read the recording as before; the profile file says it.
dprof-view report "$TMP/b.dprof" >/dev/null || fail "report of record B failed"
grep "^left out:" "$DPROF_DIR/profile"
