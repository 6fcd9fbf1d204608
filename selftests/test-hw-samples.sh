#!/bin/sh
# The IBS and PEBS sample handler, driven with the data the kernel's
# drivers hand it.  A TCG guest has no IBS or PEBS, so sampler=inject's
# "perf" lines build a struct perf_sample_data (data_src, weight, addr,
# sample_flags) and call the perf overflow handler itself,
# perf_sample_hit(), as the PMU interrupt would.  Each data_src word below
# is what a driver of Linux 6.1 builds for that access:
#   PEBS (arch/x86/events/intel/ds.c): pebs_data_source[] entries for
#     loads, precise_store_data() for stores, weight = the load latency;
#   IBS (arch/x86/events/amd/ibs.c, Zen 3): perf_ibs_get_mem_lvl() and
#     perf_ibs_get_mem_snoop() from IbsOpData2/3 (mem_lvl, no level
#     number), weight = DcMissLat.
# Addresses are a live object of the target (the workload's oldest held
# one; struct dprof_workload_obj: magic at 0, alloc_cpu 8, seq 12, link
# 16 and 24, payload from 32), a kmalloc-512 buffer (another slab cache),
# jiffies (not slab), and none.  Expected, exactly (nothing is random):
#   off  vendor case                          n     misses latency
#    0   PEBS 0x01 L1 hit load                1000  0
#    8   PEBS 0x0c L3 miss, local DRAM         400  400    250
#   16   PEBS 0x07 L3 hit, snoop HITM          300  300    120
#   24   PEBS store, L1 hit                    200  0
#   24   PEBS store, L1 miss                   100  100
#   32   IBS L1 hit load                       500  0
#   40   IBS Zen3 DataSrc=LocCache, HITM       150  150     90
#   48   IBS DRAM, local node                  250  250    300
#   kmalloc-512 buffer (other slab)             50
#   jiffies (not slab)                          70   70    200
#   no address                                  30
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/hw.dprof

# union perf_mem_data_src (include/uapi/linux/perf_event.h)
OP_LOAD=$((0x02)) OP_STORE=$((0x04))
LVL_HIT=$((0x02 << 5)) LVL_MISS=$((0x04 << 5)) LVL_L1=$((0x08 << 5))
LVL_L3=$((0x40 << 5)) LVL_LOC_RAM=$((0x80 << 5)) LVL_REM_CCE1=$((0x400 << 5))
SNOOP_NA=$((0x01 << 19)) SNOOP_NONE=$((0x02 << 19)) SNOOP_MISS=$((0x08 << 19))
SNOOP_HITM=$((0x10 << 19))
LOCK_NA=$((0x01 << 24)) TLB_NA=$((0x01 << 26))
TLB_L2_HIT=$(((0x08 | 0x01) << 26))	# PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT
LVLNUM_L1=$((0x01 << 33)) LVLNUM_L3=$((0x03 << 33)) LVLNUM_RAM=$((0x0d << 33))
OP_LH=$((OP_LOAD | LVL_HIT))	# ds.c's OP_LH

PEBS_L1=$((OP_LH | LVL_L1 | LVLNUM_L1 | SNOOP_NONE))
PEBS_DRAM=$((OP_LH | LVL_LOC_RAM | LVLNUM_RAM | SNOOP_NONE | SNOOP_MISS))
PEBS_HITM=$((OP_LH | LVL_L3 | LVLNUM_L3 | SNOOP_HITM))
PEBS_ST_HIT=$((OP_STORE | SNOOP_NA | LVL_L1 | TLB_L2_HIT | LVL_HIT))
PEBS_ST_MISS=$((OP_STORE | SNOOP_NA | LVL_L1 | TLB_L2_HIT | LVL_MISS))
# IBS: PERF_MEM_NA, then mem_op, mem_lvl and mem_snoop overwritten.
IBS_BASE=$((LOCK_NA | TLB_NA))
IBS_L1=$((IBS_BASE | OP_LOAD | LVL_L1 | LVL_HIT | SNOOP_NA))
IBS_LOC_CACHE=$((IBS_BASE | OP_LOAD | LVL_L3 | LVL_REM_CCE1 | LVL_HIT | SNOOP_HITM))
IBS_DRAM=$((IBS_BASE | OP_LOAD | LVL_LOC_RAM | LVL_HIT | SNOOP_NA))

hex() { printf '%x' "$1"; }

load_mod dprof_workload
load_mod dprof target=dprof_workload sampler=inject history=0
wl "alloc 4 0"		# after the load: in the live set
OBJ=$(wl_stat held_addr)
KM=$(wl_stat kmalloc_addr)
JIFFIES=$(ksym jiffies)
IP=$(hexadd "$(ksym vfs_read)" 16)
[ -n "$OBJ" ] && [ -n "$KM" ] && [ -n "$JIFFIES" ] ||
	fail "addresses missing: object '$OBJ', kmalloc '$KM', jiffies '$JIFFIES'"
echo "object $OBJ, kmalloc buffer $KM, jiffies $JIFFIES"

# Malformed perf lines: refused, nothing added.
for bad in "perf 1 $OBJ $IP" "perf 0 $OBJ $IP $(hex $PEBS_L1) 0" \
	"perf 1 $OBJ $IP zz 0"; do
	echo "$bad" >$DPROF_DIR/inject 2>/dev/null &&
		fail "inject accepted '$bad'"
done
grep -q "^samples: 0," $DPROF_DIR/profile ||
	fail "malformed lines added samples: $(grep '^samples:' $DPROF_DIR/profile)"

s() {	# COUNT ADDR WORD WEIGHT
	echo "echo 'perf $1 $2 $IP $(hex "$3") $4'"
}
cat >"$TMP/hw.sh" <<EOS
set -e
cd $DPROF_DIR
$(s 1000 "$OBJ" $PEBS_L1 0) >inject
$(s 400 "$(hexadd "$OBJ" 8)" $PEBS_DRAM 250) >inject
$(s 300 "$(hexadd "$OBJ" 16)" $PEBS_HITM 120) >inject
$(s 200 "$(hexadd "$OBJ" 24)" $PEBS_ST_HIT 0) >inject
$(s 100 "$(hexadd "$OBJ" 24)" $PEBS_ST_MISS 0) >inject
$(s 500 "$(hexadd "$OBJ" 32)" $IBS_L1 0) >inject
$(s 150 "$(hexadd "$OBJ" 40)" $IBS_LOC_CACHE 90) >inject
$(s 250 "$(hexadd "$OBJ" 48)" $IBS_DRAM 300) >inject
$(s 50 "$KM" $PEBS_L1 0) >inject
$(s 70 "$JIFFIES" $PEBS_DRAM 200) >inject
$(s 30 0 $PEBS_DRAM 200) >inject
EOS
taskset 1 dprof-view record -o "$out" -- sh "$TMP/hw.sh" ||
	fail "recording the handler's samples failed"
grep -E "^samples:|^not slab:|^dropped:|^  sample" $DPROF_DIR/profile
grep -q "^samples: 3050, in targets 2900, other slab caches or objects not established live 50, not slab 70, no address 30" \
	$DPROF_DIR/profile || fail "the handler's counts differ from the samples given"
unload_mod dprof

dprof-view profile --debug "$MODDIR/dprof_workload.ko" \
	--type dprof_workload=dprof_workload_obj "$out" |
	tee "$TMP/hw-profile.txt" || fail "profile failed"
# type row: type "struct" name samples misses share ±95% avg_lat bounce
# The average latency is over the misses of loads: neither driver gives
# stores a latency, so the 100 store misses are not averaged in as 0:
# (400*250 + 300*120 + 150*90 + 250*300) / 1100 = 204 (not 187).
expect_eq "type row" "$(awk '$1 == "dprof_workload" && $2 == "struct" { print $3, $4, $5, $8 }' \
	"$TMP/hw-profile.txt")" "dprof_workload_obj 2900 1200 204"
# field rows: offset size field samples share ±95% n loads stores misses
# avg_lat
rows=$(awk '/^dprof_workload/ { in_t = 1; next } /^[^ ]/ { in_t = 0 }
	in_t && $1 ~ /^[0-9]+$/ && NF >= 12 { print $1, $3, $4, $8, $9, $10, $11 }' \
	"$TMP/hw-profile.txt")
cat >"$TMP/hw-want" <<EOF
0 magic 1000 1000 0 0 -
8 alloc_cpu 400 400 0 400 250
16 link.next 300 300 0 300 120
24 link.prev 300 0 300 100 -
32 payload[0] 500 500 0 0 -
40 payload[8] 150 150 0 150 90
48 payload[16] 250 250 0 250 300
EOF
echo "$rows" | diff "$TMP/hw-want" - || fail "field rows differ from the samples given"
echo "ok: every sample through perf_sample_hit() came back in its row"

# A full table drops and counts: 256 entries per CPU, 600 distinct keys
# (one sample each at a different ip), all on CPU 0.  Every sample is
# either kept in the table or counted as dropped.
load_mod dprof target=dprof_workload sampler=inject history=0 sample_table=256
wl reset
wl "alloc 1 0"
OBJ=$(wl_stat held_addr)
base=$(ksym vfs_read)
i=0
while [ $i -lt 600 ]; do
	echo "perf 1 $OBJ $(hexadd "$base" $i) $(hex $PEBS_DRAM) 100"
	i=$((i + 1))
done >"$TMP/hw-many"
taskset 1 dprof-view record -o "$out" -- sh -c "
	while read -r line; do echo \"\$line\" >$DPROF_DIR/inject || exit 1; done <$TMP/hw-many" ||
	fail "recording the 600 keys failed"
full=$(awk '/^dropped:/ { print $2 }' $DPROF_DIR/profile)
kept=$(dprof-view profile "$out" | awk '$1 == "dprof_workload" && NF >= 6 { print $3; exit }')
echo "600 keys into 256 entries: $kept kept, $full dropped (table full)"
[ "$full" -ge 344 ] || fail "only $full samples dropped with 600 keys for 256 entries"
expect_eq "kept + dropped" "$((kept + full))" 600
grep -q "^samples: 600, in targets 600," $DPROF_DIR/profile ||
	fail "$(grep '^samples:' $DPROF_DIR/profile)"
unload_mod dprof

# The counters' own path: start_perf() (a trial counter, then one per CPU
# from the hotplug callbacks), perf calling the overflow handler, and the
# release at unload, all of which IBS and PEBS take.  test_perf=software
# opens a cpu-clock counter per CPU through it: one sample per ms of each
# CPU's time (idle is kernel time, so it counts), none with a data
# address.  Offlining CPU 1 releases its counter; onlining it must make a
# new one, or CPU 1 takes no sample after it comes back.
per_cpu() {
	sed -n "s/^samples per CPU:.* $1:\([0-9]*\).*/\1/p" $DPROF_DIR/profile
}
hotplug=/sys/devices/system/cpu/cpu1/online
load_mod dprof target=dprof_workload sampler=inject history=0 test_perf=software
grep -q "dprof/sample" /sys/devices/system/cpu/hotplug/states ||
	fail "no hotplug state for the counters"
sleep 1
grep "^samples" $DPROF_DIR/profile
s0=$(per_cpu 0) s1=$(per_cpu 1)
[ "${s0:-0}" -ge 100 ] && [ "${s1:-0}" -ge 100 ] ||
	fail "cpu-clock counters took CPU 0: ${s0:-none}, CPU 1: ${s1:-none} samples in 1 s (want >= 100 each)"
awk '/^samples:/ { gsub(",", ""); exit !($2 == $NF && $5 == 0) }' $DPROF_DIR/profile ||
	fail "counter samples should all be without an address: $(grep '^samples:' $DPROF_DIR/profile)"
if [ -w "$hotplug" ]; then
	echo 0 >"$hotplug" || fail "cannot offline CPU 1"
	sleep 0.5
	down=$(per_cpu 1)
	echo 1 >"$hotplug" || fail "cannot online CPU 1"
	sleep 1
	up=$(per_cpu 1)
	echo "CPU 1: $s1 samples before offline, $down when offline, $up after 1 s online again"
	[ "$up" -ge $((down + 100)) ] ||
		fail "CPU 1 took $((up - down)) samples in 1 s after it came back: its counter was not made again"
else
	echo "note: CPU 1 cannot be taken offline here; hotplug of the counters not checked"
fi
unload_mod dprof
grep -q "dprof/sample" /sys/devices/system/cpu/hotplug/states &&
	fail "the counters' hotplug state is left after unload"
echo "ok: cpu-clock counters through the IBS/PEBS path: created per CPU, made again after hotplug, released"

# A PMU that refuses the counter (busy, or unable to count it) fails the
# load with one line and perf's errno, and leaves nothing registered.
log_canary
expect_load_error 2 dprof target=dprof_workload sampler=inject history=0 test_perf=refuse
dmesg_since_canary | grep -q "sampler=inject test_perf: the PMU refused the counter (-2)" ||
	fail "no clear message for a refused counter: $(dmesg_since_canary | grep dprof | tail -n 2)"
grep -q "dprof/sample" /sys/devices/system/cpu/hotplug/states &&
	fail "a hotplug state is left after the refused load"
echo "ok: a refused counter fails the load: $(dmesg_since_canary | grep -o 'sampler=inject.*' | tail -n 1)"
expect_load_error 22 dprof target=dprof_workload sampler=watch test_perf=software
echo "ok: test_perf without sampler=inject is refused"
unload_mod dprof_workload
exit 0
