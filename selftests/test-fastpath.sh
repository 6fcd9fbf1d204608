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
# Operations (ops=fastpath_tx_one,fastpath_rx_one), in the same
# recording: the kthreads start only once dprof's kprobes are in
# (hold=1), and count the functions'
# calls themselves, nested receives included; at unload the module's
# counts are final, and dprof's (status, read after it) must equal them,
# its missed entries added.  advise prints each path's operations and the
# per-million-operations table: a rate is a member's samples over its
# path's operations, and on tx the three members loaded once a call
# (tx_ro_a, tx_ro_b, both_ro) agree within 3 standard errors.  (Rates of
# two paths on two vCPUs are not compared: under -icount one clock
# counts both vCPUs' instructions, so a CPU's ticks per instruction of
# its own depend on its share of them.)
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

# The kprobes of ops= cost some 180 instructions a call, more than the
# functions they count: a tick every 200 us keeps the samples up.
load_mod dprof_fastpath hold=1
load_mod dprof target=dprof_fastpath sampler=operand period=200000 callchain=16 history=0 \
	ops=fastpath_tx_one,fastpath_rx_one
echo 1 >/sys/kernel/debug/dprof_fastpath/go
dprof-view record -o fp.data -d 8 >record.log 2>&1 || fail "record: $(cat record.log)"
cat /sys/kernel/debug/dprof_fastpath/stats
grep "^call chains" "$DPROF_DIR/profile" || fail "no call chains line in profile"
grep -E "sample:callchain|kprobe:ops" "$DPROF_DIR/status"
log_canary
unload_mod dprof_fastpath
truth=$(dmesg_since_canary | grep "dprof_fastpath: calls " | tail -n 1)
counted=$(grep "^operations counted since load" "$DPROF_DIR/status")
unload_mod dprof

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
# "tx, 64-byte lines  6 [6,6]  1 [1,1]": today and proposed, each with
# its interval, which the 200-odd samples of every hot member pin.
$1 == "tx," && $2 == "64-byte" { tx = $4 " " $6; txi = $5 " " $7 }
$1 == "rx," && $2 == "64-byte" { rx = $4 " " $6; rxi = $5 " " $7 }
END {
	if (tx != "6 1") { printf "FAIL: tx touches %s lines today and proposed, expected 6 1\n", tx; exit 1 }
	if (rx != "5 1") { printf "FAIL: rx touches %s lines today and proposed, expected 5 1\n", rx; exit 1 }
	if (txi != "[6,6] [1,1]" || rxi != "[5,5] [1,1]") { printf "FAIL: intervals tx %s, rx %s: every hot member has some 200 samples, expected [6,6] [1,1] and [5,5] [1,1]\n", txi, rxi; exit 1 }
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
echo "module: $truth"
echo "dprof:  $counted"
echo "$truth
$counted" | awk '
/dprof_fastpath: calls/ { for (i = 1; i < NF; i++) if ($i ~ /^fastpath_/) want[$i] = $(i + 1) }
/^operations counted/ {
	for (i = 1; i < NF; i++)
		if ($i ~ /^fastpath_/) { got[$i] = $(i + 1); if ($(i + 2) ~ /^\(/) { m = $(i + 2); sub(/\(/, "", m); got[$i] += m } }
}
END {
	n = 0
	for (f in want) {
		n++
		if (want[f] < 1000) { printf "FAIL: %s called %d times, too few to judge\n", f, want[f]; bad = 1 }
		if (got[f] != want[f]) { printf "FAIL: dprof counted %s %s times (missed added), the module %s\n", f, got[f], want[f]; bad = 1 }
	}
	if (n != 2) { print "FAIL: the module did not log its two counts"; bad = 1 }
	exit bad
}' || fail "the operations counted (above)"

sed -n '/^operations:/p; /^samples per million ops/,/^$/p' advise.txt
grep -q "^operations: tx [0-9]* (fastpath_tx_one), rx [0-9]* (fastpath_rx_one)" advise.txt ||
	fail "advise did not name each path's operations"
# Each rate is the table's samples over the path's operations; and on
# tx, tx_ro_a, tx_ro_b and both_ro, each loaded once a call, agree.
awk '
$1 == "member" && $4 == "tx" && $5 == "rx" { table = 1; next }
$1 == "samples" && $2 == "per" && $3 == "million" { table = 0; per = 1; next }
table && NF == 0 { table = 0 }
table { samples[$1] = $5 }
per && $1 == "member" { next }
per && NF == 0 { per = 0 }
per { rate[$1] = $2; rx[$1] = $6 }
/^operations: / { txo = $3 }
END {
	if (!("both_ro" in rate)) { print "FAIL: no both_ro row in the per-operation table"; exit 1 }
	want = samples["both_ro"] * 1e6 / txo
	if (rate["both_ro"] < want * 0.99 || rate["both_ro"] > want * 1.01) {
		printf "FAIL: both_ro reads %s per million tx operations, its %d samples over %d operations are %.3g\n", rate["both_ro"], samples["both_ro"], txo, want; exit 1
	}
	n = split("tx_ro_a tx_ro_b both_ro", m, " "); mean = 0
	for (i = 1; i <= n; i++) mean += rate[m[i]] / n
	for (i = 1; i <= n; i++) {
		# busybox awk has no sqrt: squares compared (Poisson variance k).
		k = rate[m[i]] * txo / 1e6; var = k * (1e6 / txo) * (1e6 / txo)
		printf "%s: %s loads per million tx operations (%d samples), the three'\''s mean %.3g\n", m[i], rate[m[i]], k, mean
		if (k < 20) { printf "FAIL: %s has fewer than 20 samples on tx\n", m[i]; bad = 1 }
		d = rate[m[i]] - mean
		if (d * d > 9 * var) { printf "FAIL: %s differs from the mean beyond 3 standard errors\n", m[i]; bad = 1 }
	}
	exit bad
}' advise.txt || fail "the per-operation table (above)"
exit 0
