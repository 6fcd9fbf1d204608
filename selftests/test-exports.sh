#!/bin/sh
# dprof-view export on recordings whose content is known in advance; the
# files go to the host (/host/exports/KERNEL/), where
# scripts/check-exports.sh has them read by tools nobody here wrote:
# pprof, and speedscope in headless Chromium.
#  - inject.dprof: sampler=inject runs the samples of inject.plan through
#    the IBS/PEBS sample path at offsets 8 and 16 of one dprof_workload
#    object, from three kernel functions, with known misses and latencies;
#    the pprof export must total exactly the plan, per function too;
#  - sharing.dprof: histories of dprof_sharing's objects, which its source
#    allocates on CPU 0, uses from both CPUs and frees on CPU 1 (table in
#    modules/dprof_sharing.c: offset 64 is written by CPU 0 only, 72 by
#    CPU 1 only); in the trace every complete history must start on CPU
#    0, end on CPU 1, cross between them by flow arrows, and have its
#    offset-64 accesses on CPU 0's track and its offset-72 ones on CPU 1's;
#    the same recording's heat map (profile --svg, on the host with the
#    module's DWARF) must label 0 true sharing, 64 and 72 false sharing.
. ./functions.sh
trap cleanup_modules EXIT
dir=/host/exports/$(uname -r)
rm -rf "$dir"
mkdir -p "$dir" || fail "cannot write $dir on the host share"

load_mod dprof_workload
load_mod dprof target=dprof_workload sampler=inject history=0
wl reset
wl "alloc 1 0"
obj=$(wl_stat held_addr)
# COUNT OFFSET FUNCTION KIND LATENCY
cat >"$dir/inject.plan" <<EOF
300 8 vfs_read load+miss 120
200 16 vfs_write store 0
100 8 ksys_read load+miss 80
EOF
# One write per line, each on CPU 0.
while read -r n off fn kind lat; do
	ip=$(ksym "$fn")
	[ -n "$ip" ] || fail "no $fn in kallsyms"
	echo "echo '$n $(hexadd "$obj" "$off") $ip $kind $lat' >$DPROF_DIR/inject || exit 1"
done <"$dir/inject.plan" >"$TMP/inject.sh"
dprof-view record -o "$dir/inject.dprof" -- taskset 1 sh "$TMP/inject.sh" ||
	fail "recording the injected samples failed"
dprof-view profile "$dir/inject.dprof" | head -n 12
dprof-view export --pprof "$dir/inject.pb.gz" "$dir/inject.dprof" ||
	fail "export --pprof failed"
[ "$(gzip -dc "$dir/inject.pb.gz" | wc -c)" -gt 100 ] ||
	fail "the pprof export is empty"
unload_mod dprof
unload_mod dprof_workload

# Errors: nothing to export is one line and a non-zero status.
dprof-view export --perfetto "$TMP/none.json" "$dir/inject.dprof" 2>"$TMP/err" &&
	fail "export --perfetto of a recording without histories succeeded"
cat "$TMP/err"
grep -q "holds no object histories" "$TMP/err" || fail "unclear error: $(cat "$TMP/err")"
[ -e "$TMP/none.json" ] && fail "a failed export left a file behind"
dprof-view export "$dir/inject.dprof" 2>/dev/null &&
	fail "export without a format succeeded"

load_mod dprof_sharing
load_mod dprof target=dprof_sharing history_offsets=0,64,72,128
iters=10
echo $iters >"$dir/sharing.iters"
# Until classify decides every label of the type: stopping at 4
# histories left 3 a field some runs, too few to decide, and the heat
# map then labels nothing (a clean-clone make check failed so).
cat >"$TMP/run.sh" <<'EOS'
while echo "run 200 $1 0 1" >/sys/kernel/debug/dprof_sharing/ctl; do :; done
EOS
dprof-view record --until decided=dprof_sharing -d 120 -o "$dir/sharing.dprof" \
	-- sh "$TMP/run.sh" $iters 2>"$TMP/record.err" ||
	fail "recording the sharing workload failed: $(cat "$TMP/record.err")"
grep -q "goal decided=dprof_sharing met" "$TMP/record.err" ||
	fail "the heat map's labels were not all decided in 120 s: $(tail -n 3 "$TMP/record.err")"
dprof-view export --perfetto "$dir/sharing.json" "$dir/sharing.dprof" ||
	fail "export --perfetto failed"
dprof-view histories --script "$dir/sharing.dprof" >"$dir/sharing.histories"
# history ID TARGET offsets A,B alloc_cpu C end_cpu C lifetime_ns N end R complete X dropped N
# "ID OFFSETS" of each complete history: the offsets it watched.
awk '$1 == "history" && $13 == "freed" && $15 == 1 && $17 == 0 { print $2, $5 }' \
	"$dir/sharing.histories" >"$dir/sharing.complete"
complete=$(wc -l <"$dir/sharing.complete")
echo "$complete complete histories"
[ "$complete" -ge 1 ] || fail "no complete history of dprof_sharing to check"
echo "ok: exports in $dir for the host's readers"
exit 0
