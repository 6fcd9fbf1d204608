#!/bin/sh
# dprof loads against a real cache, exposes its debugfs tree read-only,
# reports a calibrated layout, and unloads leaving nothing behind.
. ./functions.sh
trap cleanup_modules EXIT

load_mod dprof_workload
load_mod dprof target=dprof_workload
for f in version status targets dropped events; do
	[ -f "$DPROF_DIR/$f" ] || fail "debugfs file $f missing"
	mode=$(stat -c %a "$DPROF_DIR/$f")
	expect_eq "mode of $f" "$mode" 400
done
# The module and dprof-view are built from one uapi/dprof.h: one ABI.
abi=$(dprof-view --version | sed -n 's/.*(abi \([0-9]*\)).*/\1/p')
grep -q "^dprof .* abi $abi$" "$DPROF_DIR/version" ||
	fail "version: $(cat $DPROF_DIR/version), dprof-view reads abi $abi"
for field in slab.slab_cache kmem_cache.size kmem_cache.name kmem_cache.list; do
	grep -q "$field .*(calibrated)" "$DPROF_DIR/status" ||
		fail "status does not show $field calibrated"
done
# Calibration against the kernel's own description of its structs: the
# offsets found by allocating and searching must be the BTF's.
if [ -r /sys/kernel/btf/vmlinux ]; then
	for field in slab.slab_cache kmem_cache.size kmem_cache.name \
		     kmem_cache.list slab.counters kmem_cache.red_left_pad; do
		struct=${field%%.*} member=${field#*.}
		[ "$member" = list ] && member=list.next
		btf=$(dprof-view layout --btf /sys/kernel/btf/vmlinux "$struct" |
			awk -v m="$member" '$3 == m { print $1; exit }')
		[ -n "$btf" ] || fail "no $member in the BTF's struct $struct"
		got=$(awk -v f="$field" '$1 == f && $2 == "offset" { print $3 }' \
			"$DPROF_DIR/status")
		expect_eq "$field offset calibrated against BTF" "$got" "$btf"
	done
else
	echo "no /sys/kernel/btf/vmlinux: calibration not compared with BTF"
fi
# The workload's struct is 320 bytes (selftests/modules/dprof_workload.c);
# with a constructor SLUB keeps its free pointer after the object.
line=$(grep -v '^#' "$DPROF_DIR/targets")
set -- $line
expect_eq "target name" "$2" dprof_workload
expect_eq "object size" "$3" 320
[ "$4" -gt 320 ] || fail "stride $4 should exceed the object size 320"
grep -q dprof_calib /proc/slabinfo && fail "calibration caches left behind"
# status says which hooks are armed and why: no kmalloc-N target here, so
# the kmalloc tracepoint is not.
grep -q "^hooks, armed from load to unload" "$DPROF_DIR/status" ||
	fail "status does not say which hooks are armed"
grep -q "^  tracepoint kmalloc: off (no kmalloc-N target)" "$DPROF_DIR/status" ||
	fail "status says the kmalloc tracepoint is armed without a kmalloc-N target"
# The costs table judges budgets only where instructions are counted
# exactly (-icount: modload passes test_exact_counts=1); elsewhere the
# cycles-based counts are estimates and carry no verdict.
costs=$(sed -n '/^handler costs/,/^  timed calls/p' "$DPROF_DIR/status")
if under_icount; then
	echo "$costs" | grep -q "counted exactly" ||
		fail "under -icount the costs table does not judge budgets: $(echo "$costs" | sed -n 2p)"
else
	echo "$costs" | grep -q "^  ~insn: estimated" ||
		fail "the costs table does not call its counts estimates: $(echo "$costs" | sed -n 2p)"
	echo "$costs" | grep -E -q "[0-9]+/[0-9]+!?( |$)" &&
		fail "estimated counts judged against budgets: $(echo "$costs" | grep -E '[0-9]+/[0-9]+' | head -1)"
fi
echo "ok: the costs table says whether its counts are exact"
unload_mod dprof
load_mod dprof target=size-256
grep -q "^  tracepoint kmalloc: kmalloc-N targets" "$DPROF_DIR/status" ||
	fail "status does not say the kmalloc tracepoint is armed for size-256"
unload_mod dprof
[ -d "$DPROF_DIR" ] && fail "debugfs tree left after unload"
unload_mod dprof_workload
exit 0
