#!/bin/sh
# A long-lived type's accesses split by hot path, from the samples' call
# chains (callchain=16), and dprof-view advise by hot path: the
# maintainers' table, the groups, the lines each path touches, and the
# guard of the groups across two builds.
#
# Ground truth (selftests/modules/dprof_fastpath.c, whose header gives
# the table): 256 objects swept for as long as the module is loaded by
# a transmit kthread on CPU 0 and a receive kthread on CPU 1, each
# member read or written on known paths (loads, a plain store under a
# spinlock, atomic adds), receive also run nested inside transmit every
# fourth object.  The paths named tx=fastpath_tx_one and
# rx=fastpath_rx_one, the innermost on a chain wins: a sample of the
# nested receive that counted as transmit would put rx_ro and rx_rw on
# tx.  Each use is checked, and that the cold members are on no path.
# The hot members sit on 6 lines for tx and 5 for rx; the proposal must
# put each path on 1 line (their 56 bytes fit one), in the groups
# <struct>_read_tx, _read_txrx, _read_rx, _write_tx, _write_txrx,
# _write_rx.  Without --path the paths are named by their kernel entry,
# here the kthreads' functions.
#
# The guard: the recorded build has the group fastpath_obj_tx from
# tx_ro_a to tx_rw; dprof_fastpath_moved.ko (the same source, tx_rw
# declared after the group's end) must fail --check naming tx_rw, and
# the recorded build's own DWARF must pass.
#
# Under multi-threaded TCG a tick stops at a translation block's start,
# never at most of these loads (test-operand-sampler.sh): -icount only.
. ./functions.sh
trap cleanup_modules EXIT

under_icount ||
	skip "the paths' samples need -icount (a tick under multi-threaded TCG stops at a translation block's start)"

load_mod dprof_fastpath
load_mod dprof target=dprof_fastpath sampler=operand callchain=16 history=0
dprof-view record -o fp.data -d 8 >record.log 2>&1 || fail "record: $(cat record.log)"
cat /sys/kernel/debug/dprof_fastpath/stats
grep "^call chains" "$DPROF_DIR/profile" || fail "no call chains line in profile"
grep "sample:callchain" "$DPROF_DIR/status"
unload_mod dprof
unload_mod dprof_fastpath

names="--debug $MODDIR/dprof_fastpath.ko --type dprof_fastpath=fastpath_obj"
paths="--path tx=fastpath_tx_one --path rx=fastpath_rx_one"
# shellcheck disable=SC2086
dprof-view advise $names $paths fp.data dprof_fastpath >advise.txt 2>&1 ||
	fail "advise by path failed: $(head -n 3 advise.txt)"
cat advise.txt

awk '
/^dprof_fastpath .*by hot path/ { chained = $9 + 0 }
$1 == "member" && $4 == "tx" && $5 == "rx" { table = 1; next }
table && NF == 0 { table = 0 }
table { use[$1] = $4 " " $6 }
END {
	want["rx_ro"] = "- read_mostly"
	want["tx_ro_a"] = "read_mostly -"
	want["both_ro"] = "read_mostly read_mostly"
	want["tx_rw"] = "read_write -"
	want["both_rw"] = "read_write read_write"
	want["tx_ro_b"] = "read_mostly -"
	want["lock"] = "read_write read_write"
	want["rx_rw"] = "- read_write"
	if (chained < 1000) { printf "FAIL: %d samples with chains, 1000 wanted\n", chained; exit 1 }
	for (m in want)
		if (use[m] != want[m]) { printf "FAIL: %s: tx, rx read \"%s\", expected \"%s\"\n", m, use[m], want[m]; bad = 1 }
	for (m in use)
		if (!(m in want)) { printf "FAIL: %s is on a path (%s), expected on none\n", m, use[m]; bad = 1 }
	exit bad
}' advise.txt || fail "the table (above)"

# The groups, from the struct_check() lines: group -> its members.
awk '
/CACHELINE_ASSERT_GROUP_MEMBER/ {
	sub(/.*\(struct fastpath_obj, /, ""); sub(/\);$/, "")
	split($0, f, ", "); got[f[1]] = got[f[1]] " " f[2]
}
END {
	want["fastpath_obj_read_tx"] = " tx_ro_a tx_ro_b"
	want["fastpath_obj_read_txrx"] = " both_ro"
	want["fastpath_obj_read_rx"] = " rx_ro"
	want["fastpath_obj_write_tx"] = " tx_rw"
	want["fastpath_obj_write_txrx"] = " both_rw lock"
	want["fastpath_obj_write_rx"] = " rx_rw"
	for (g in want) {
		n = split(want[g], w, " "); m = split(got[g], h, " ")
		s = ""; for (i = 1; i <= m; i++) s = s " " h[i]
		ok = n == m
		for (i = 1; i <= n && ok; i++) ok = index(s " ", " " w[i] " ") > 0
		if (!ok) { printf "FAIL: group %s holds \"%s\", expected \"%s\"\n", g, got[g], want[g]; bad = 1 }
	}
	for (g in got) if (!(g in want)) { printf "FAIL: unexpected group %s\n", g; bad = 1 }
	exit bad
}' advise.txt || fail "the groups (above)"
grep -q "__cacheline_group_begin(fastpath_obj_read_tx);" advise.txt ||
	fail "the struct has no group markers"

awk '
$1 == "tx," && $2 == "64-byte" { tx = $4 " " $5 }
$1 == "rx," && $2 == "64-byte" { rx = $4 " " $5 }
END {
	if (tx != "6 1") { printf "FAIL: tx touches %s lines today and proposed, expected 6 1\n", tx; exit 1 }
	if (rx != "5 1") { printf "FAIL: rx touches %s lines today and proposed, expected 5 1\n", rx; exit 1 }
}' advise.txt || fail "the lines per path (above)"

# By kernel entry: the kthreads' functions.
# shellcheck disable=SC2086
dprof-view advise $names --by-path fp.data dprof_fastpath >entry.txt 2>&1 ||
	fail "advise --by-path failed: $(head -n 3 entry.txt)"
grep "^paths:" entry.txt
grep "^paths:" entry.txt | grep -q " fastpath_tx_thread [0-9]* samples" &&
	grep "^paths:" entry.txt | grep -q " fastpath_rx_thread [0-9]* samples" ||
	fail "the paths by entry are not the two kthreads' functions"

# The guard: the moved build fails naming tx_rw, the recorded one passes.
# shellcheck disable=SC2086
dprof-view advise $names $paths --against "$MODDIR/dprof_fastpath_moved.ko" --check \
	fp.data dprof_fastpath >moved.txt 2>&1
rc=$?
grep -A3 "^group guard" moved.txt
[ "$rc" = 1 ] || fail "--check against the moved build exited $rc, expected 1: $(tail -n 3 moved.txt)"
grep -q "^  tx_rw: at 192, out of fastpath_obj_tx \[64, 192)" moved.txt ||
	fail "the guard did not name tx_rw"
[ "$(grep -c '^  [a-z_]*: ' moved.txt)" = 1 ] || fail "the guard named more than tx_rw"
# shellcheck disable=SC2086
dprof-view advise $names $paths --against "$MODDIR/dprof_fastpath.ko" --check \
	fp.data dprof_fastpath >same.txt 2>&1 ||
	fail "--check against the recorded build failed: $(grep -A3 '^group guard' same.txt)"
grep "^group guard" same.txt
grep -q "^group guard: 3 members on a hot path in the recorded build's groups, 0 left" same.txt ||
	fail "the guard did not see tx_ro_a, both_ro and tx_rw in their group"
exit 0
