#!/bin/sh
# Samples outside slab objects, named by symbol and field, against ground
# truth.
#
# A TCG guest has no IBS or PEBS, so sampler=inject runs dprof's sample
# path from the data address on (slab resolution, the variable and data
# tables, the recording, dprof-view's naming) on samples this test writes
# to debugfs "inject", at addresses the kernel itself gives:
#
#   address (where from)                      kind        samples  misses
#   dprof_sharing_global+0   "both.counter"   load+miss      3000    3000
#     (dprof_sharing's stats: &dprof_sharing_global; module bss)
#   dprof_sharing_global+64  "a_only.counter" store+miss     1000    1000
#   CPU 1's dprof_sharing_pcpu+64 "drops"     load+miss      2000    2000
#     (stats: per_cpu_ptr(&dprof_sharing_pcpu, 1); a module's per-CPU)
#   CPU 1's runqueues+4                       load+miss      1500    1500
#     (kallsyms runqueues + per_cpu_offset(1); struct rq begins with a
#     4-byte raw_spinlock_t __lock, then unsigned int nr_running
#     (kernel/sched/sched.h, no lockdep in Debian's kernels; with lockdep
#     the offset comes from BTF), so the
#     field is nr_running, named from vmlinux BTF, which holds per-CPU
#     variables)
#   jiffies                                   load       2100       0
#                                             load+miss   300     300
#   0x10000 (user memory, as copy_from_user)  load+miss   200     200
#
# By misses the ranking is global 4000, pcpu 2000, runqueues 1500,
# jiffies 300, [user] 200; by samples jiffies (2400) would be second, so
# the order also tells the ranking is by misses.  Every count must come
# back exactly: nothing here is sampled at random.  The module's fields
# are named from its DWARF (--debug).
# Bad input: inject with another sampler, and malformed lines, each give
# one line in the kernel log and an error from write().
. ./functions.sh
trap cleanup_modules EXIT
stats=/sys/kernel/debug/dprof_sharing/stats
out=$TMP/data.dprof

load_mod dprof_sharing
GLOBAL=$(awk '$1 == "global_addr" { print $2 }' $stats)
PCPU1=$(awk '$1 == "pcpu_addr" && $2 == 1 { print $3 }' $stats)
OFF1=$(awk '$1 == "per_cpu_offset" && $2 == 1 { print $3 }' $stats)
DROPS=$(awk '$1 == "pcpu_offset" && $2 == "drops" { print $3 }' $stats)
[ -n "$GLOBAL" ] && [ -n "$PCPU1" ] && [ -n "$OFF1" ] ||
	skip "CPU 1 or dprof_sharing's addresses missing (one CPU?)"
RQ=$(ksym runqueues)
JIFFIES=$(ksym jiffies)
IP_MOD=$(hexadd "$(ksym vfs_read)" 16)
IP_RQ=$(hexadd "$(ksym ktime_get)" 8)
[ -n "$RQ" ] && [ -n "$JIFFIES" ] || fail "runqueues or jiffies not in kallsyms"
# nr_running follows the 4-byte lock on Debian's kernels; with lockdep
# (make check-debug) raw_spinlock_t carries debug fields and the offset
# is taken from the kernel's BTF.
NR_RUNNING=4
if [ -e /proc/lockdep ]; then
	NR_RUNNING=$(dprof-view layout --btf /sys/kernel/btf/vmlinux rq |
		awk '$3 == "nr_running" { print $1; exit }')
	[ -n "$NR_RUNNING" ] || fail "no nr_running in the BTF's struct rq"
fi
RQ1=$(printf '%x' $(( 0x$OFF1 + 0x$RQ + NR_RUNNING )))
echo "global $GLOBAL, pcpu@1 $PCPU1, runqueues@1+$NR_RUNNING $RQ1, jiffies $JIFFIES"

# Another sampler: inject refuses, with the reason.
log_canary
load_mod dprof target=dprof_sharing sampler=watch history=0
echo "1 $JIFFIES $IP_RQ load" >$DPROF_DIR/inject 2>/dev/null &&
	fail "inject accepted a sample with sampler=watch"
dmesg_since_canary | grep -q "samples are injected with sampler=inject only" ||
	fail "no message for inject with sampler=watch"
unload_mod dprof

load_mod dprof target=dprof_sharing sampler=inject history=0
for bad in "garbage" "0 $JIFFIES $IP_RQ load" "2000000 $JIFFIES $IP_RQ load" \
	"1 $JIFFIES $IP_RQ fetch"; do
	echo "$bad" >$DPROF_DIR/inject 2>/dev/null &&
		fail "inject accepted '$bad'"
done
dmesg_since_canary | grep -q "inject: want lines" ||
	fail "no message for a malformed inject line"
grep "^samples:" $DPROF_DIR/profile | grep -q "^samples: 0," ||
	fail "malformed lines added samples: $(grep '^samples:' $DPROF_DIR/profile)"

cat >"$TMP/inject.sh" <<EOS
set -e
cd $DPROF_DIR
echo "3000 $(hexadd "$GLOBAL" 0) $IP_MOD load+miss 200" >inject
echo "1000 $(hexadd "$GLOBAL" 64) $IP_MOD store+miss 300" >inject
echo "2000 $(hexadd "$PCPU1" "$DROPS") $IP_MOD load+miss 400" >inject
echo "1500 $RQ1 $IP_RQ load+miss 250" >inject
echo "2100 $JIFFIES $IP_RQ load" >inject
echo "300 $JIFFIES $IP_RQ load+miss 100" >inject
echo "200 10000 $IP_RQ load+miss 50" >inject
EOS
taskset 1 dprof-view record -o "$out" -- sh "$TMP/inject.sh" ||
	fail "recording the injected samples failed"
grep -E "^samples:|^not slab:|^dropped:" $DPROF_DIR/profile
grep -q "^samples: 10100, in targets 0, other slab .* 0, not slab 10100, no address 0" \
	$DPROF_DIR/profile || fail "the module did not count 10100 samples outside slab"
grep -q "^not slab: 0 on task stacks, 200 in user memory, 9900 by address" \
	$DPROF_DIR/profile || fail "the module's not-slab split is wrong"
unload_mod dprof

dprof-view report "$out" | tee "$TMP/report.txt" || fail "report failed"
# rank type struct ws older samples share...
awk '$1 ~ /^[0-9]+$/ { print $1, $2, $6 }' "$TMP/report.txt" >"$TMP/ranks"
cat >"$TMP/want" <<EOF
1 dprof_sharing_global[dprof_sharing] 4000
2 dprof_sharing_pcpu(percpu)[dprof_sharing] 2000
3 runqueues(percpu) 1500
4 jiffies 2400
5 [user] 200
EOF
diff "$TMP/want" "$TMP/ranks" || fail "the ranking differs from the injected counts"
grep -q "struct rq\|^ *3 *runqueues(percpu) *rq " "$TMP/report.txt" ||
	fail "runqueues' struct not named from BTF"

dprof-view profile --debug "$MODDIR/dprof_sharing.ko" "$out" |
	tee "$TMP/profile.txt" || fail "profile failed"
# field rows: offset size field samples share ±95% n loads stores misses
# lat top
field() {	# TYPE OFFSET -> "field samples misses top"
	awk -v t="$1:" -v o="$2" '
		/^[^ ]/ { in_t = ($1 == t) }
		in_t && $1 == o && NF >= 12 { print $3, $4, $10, $12; exit }' \
		"$TMP/profile.txt"
}
expect_row() {	# TYPE OFFSET WANT
	got=$(field "$1" "$2")
	[ "$got" = "$3" ] || fail "$1 +$2: '$got', expected '$3'"
	echo "$1 +$2: $got"
}
expect_row "dprof_sharing_global[dprof_sharing]" 0 "both.counter 3000 3000 vfs_read+0x10"
expect_row "dprof_sharing_global[dprof_sharing]" 64 "a_only.counter 1000 1000 vfs_read+0x10"
expect_row "dprof_sharing_pcpu(percpu)[dprof_sharing]" "$DROPS" \
	"drops 2000 2000 vfs_read+0x10"
expect_row "runqueues(percpu)" $NR_RUNNING "nr_running 1500 1500 ktime_get+0x8"
expect_row "jiffies" 0 "+0 2400 300 ktime_get+0x8"
dprof-view profile -t 'runqueues(percpu)' "$out" >"$TMP/one.txt" ||
	fail "profile -t 'runqueues(percpu)' failed"
grep -q "nr_running" "$TMP/one.txt" && ! grep -q "^jiffies" "$TMP/one.txt" ||
	fail "profile -t 'runqueues(percpu)' does not show that type alone"
echo "ok: every injected sample came back, named by symbol and field"
