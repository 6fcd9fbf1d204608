#!/bin/sh
# kmalloc-N's samples split by allocation site: a sample on an object
# the live set holds is written as a record with the object's base, and
# dprof-view profile finds the object's allocation among the ALLOC
# records and charges the sample to its call site.
#
# Ground truth (selftests/modules/dprof_sites.c): 4096 objects of
# kmalloc(48) from sites_alloc_hot() and as many from sites_alloc_cold(),
# allocated after dprof.ko loads; a kthread on CPU 1 increments each hot
# object's counter 3 times a visit and each cold one once, with the same
# instructions (lock incq).  Under -icount a tick of the operand sampler
# falls at a uniformly random instruction, so of the samples on these
# objects 3/4 go to the hot site, whether every object is followed (the
# cache named) or 1 in 4 by address (target=all track_one_in=4): checked
# within 3 binomial standard
# errors over the objects' samples plus 2 %; the hot site's 95 %
# interval is no narrower than the binomial's, and 1.5 times it holds
# 3/4 (a 95 % interval alone would fail one run in twenty).  Under multi-threaded TCG a tick never stops
# at the loop's lock incq (mid-block; see test-operand-sampler.sh): the
# test needs -icount, where make check runs it.
. ./functions.sh
trap cleanup_modules EXIT

under_icount ||
	skip "the sites' shares need -icount (a tick under multi-threaded TCG stops at a translation block's start)"
# check_split LABEL MIN: the two sites' samples in profile.txt, summed
# over the size-64 caches (one on 6.1; random kmalloc caches would give
# several).  Lines: "  NN.N% ±H  SAMPLES samples OBJECTS objects  SITE".
check_split() {
	awk -v label="$1" -v min="$2" '
	function root(x,  r, i) { r = x > 1 ? x : 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }
	/samples by allocation site/ { split_on = 1; next }
	split_on && $4 == "samples" && $6 == "objects" {
		if (index($7, "sites_alloc_hot") == 1) { hot += $3; hot_share = $1 + 0; h = $2; gsub(/[^0-9.]/, "", h); hot_half = h + 0 }
		else if (index($7, "sites_alloc_cold") == 1) cold += $3
		next
	}
	{ split_on = 0 }
	END {
		n = hot + cold
		if (n < min) { printf "FAIL: %s: %d samples on the two sites (hot %d, cold %d), %d wanted\n", label, n, hot, cold, min; exit 1 }
		p = hot / n; want = 0.75
		tol = 3 * root(want * (1 - want) / n) + 0.02
		d = p - want; if (d < 0) d = -d
		printf "%s: hot site %.3f of %d samples on the two sites, expected %.3f +- %.3f; its interval %.1f%% +- %.1f\n", label, p, n, want, tol, hot_share, hot_half
		if (d > tol) { print "FAIL: the hot site'"'"'s share is out of tolerance"; exit 1 }
		# The interval is over objects, never narrower than the binomial
		# of the samples; 1.5 times it (some 3 standard errors) holds 3/4.
		bin = 100 * 1.96 * root(p * (1 - p) / n)
		if (hot_half < bin - 0.1) { printf "FAIL: the hot site'"'"'s interval +- %.1f is narrower than the binomial +- %.1f\n", hot_half, bin; exit 1 }
		d = hot_share - 75; if (d < 0) d = -d
		if (d > 1.5 * hot_half) { print "FAIL: 1.5 times the hot site'"'"'s 95 % interval does not hold 75 %"; exit 1 }
	}' profile.txt || fail "$1: the sites' shares (above)"
}

# record_sites LABEL MODULE-PARAMS...: dprof.ko, then dprof_sites (its
# allocations recorded), 10 s recorded, the profile in profile.txt.
record_sites() {
	local label=$1
	shift
	load_mod dprof "$@"
	load_mod dprof_sites
	dprof-view record -o sites.data -d 10 >record.log 2>&1 || fail "$label: record: $(cat record.log)"
	cat /sys/kernel/debug/dprof_sites/stats
	grep "^site records" "$DPROF_DIR/profile" ||
		fail "$label: the module wrote no site record: $(grep -E '^(sampler|samples):' "$DPROF_DIR/profile")"
	dprof-view profile sites.data >profile.txt 2>&1 || fail "$label: profile failed: $(head -n 3 profile.txt)"
	grep -A4 "samples by allocation site" profile.txt | grep -B1 -A3 "sites_alloc_" | head -n 8
	unload_mod dprof
	unload_mod dprof_sites
}

# The cache named, every object followed: track_one_in=1 given, as the
# auto rule halves the objects followed when dprof_sites' 8,192
# allocations at load pass track_max_rate (some runs, not others).
# history=0: the shares are the operand sampler's, no debug register.
record_sites "size-64" target=size-64 sampler=operand track_one_in=1 history=0
check_split "size-64" 400
# Every cache, 1 object in 4 followed, chosen by address hash: the
# followed objects' samples split as all of them do.
record_sites "all, 1 in 4" target=all sampler=operand track_one_in=4 history=0
check_split "all, 1 in 4" 100
exit 0
