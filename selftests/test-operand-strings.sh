#!/bin/sh
# The operand sampler on string instructions: the same stores made by
# memset() (rep stosb where the CPU has ERMS, as the kernels under test
# use) and by movq weigh the same.
#
# Ground truth (selftests/modules/dprof_strings.c): a kthread on CPU 1
# clears each object of dprof_str_rep with memset() of LEN bytes and
# writes LEN / 8 quadwords to each of dprof_str_mov with WRITE_ONCE():
# the same 8-byte slots once a visit.  A tick at a random instruction
# lands on a byte of the memset eight times as often as on a movq; the
# slot rule keeps one element of each 8-byte slot (module/operand.c),
# as the referee counts a string, so the two types' samples come 1:1:
# checked within 3 binomial standard errors plus 2 %, at LEN 64 and 16.
# Under -icount TCG runs a rep string once more after its last element
# (count 0), pointing at the next object: before the sampler dropped a
# rep string with a count of 0, memset() of 16 bytes read 1.42 times
# the movq (906 and 638 samples), of 64 bytes 1.10 times.  Under
# multi-threaded TCG a tick falls at a translation block's start: the
# test needs -icount, where make check runs it.
. ./functions.sh
trap cleanup_modules EXIT

under_icount ||
	skip "the operand sampler's shares need -icount (a tick under multi-threaded TCG stops at a translation block's start)"
count() { awk -v t="$1" '$1 == t { print $2; exit }' "$DPROF_DIR/profile"; }
for len in 64 16; do
	load_mod dprof_strings len=$len
	# target=all's operand sampler, typed by the page, at 2 kHz: each
	# guest second under -icount is slow to emulate here (TCG runs a rep
	# string an element at a time), so the same samples in fewer seconds.
	load_mod dprof target=all period=500000
	sleep 8
	cat /sys/kernel/debug/dprof_strings/stats
	grep -E "operands sampled|rep string" "$DPROF_DIR/profile"
	rep=$(count dprof_str_rep) mov=$(count dprof_str_mov)
	unload_mod dprof
	unload_mod dprof_strings
	awk -v len="$len" -v rep="${rep:-0}" -v mov="${mov:-0}" '
	function root(x,  r, i) { r = x > 1 ? x : 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }
	BEGIN {
		n = rep + mov
		if (n < 300) { printf "FAIL: len %d: %d samples on the two caches\n", len, n; exit 1 }
		p = rep / n; tol = 3 * root(0.25 / n) + 0.02
		d = p - 0.5; if (d < 0) d = -d
		printf "len %d: memset %d, movq %d samples: memset %.3f of them, expected 0.500 +- %.3f\n", len, rep, mov, p, tol
		exit d > tol
	}' || fail "memset() and movq weigh differently at len $len (above)"
done
exit 0
