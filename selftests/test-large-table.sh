#!/bin/sh
# The largest sample table the parameters allow (sample_table=1048576
# slots per CPU), read through (issue 29, point 8).  The samples file's
# position is a slot index over every CPU's table in turn:
#  - 32 samples injected at 32 offsets of one object are 32 entries
#    (40 bytes each), read back whole whatever the read size: with 64 KiB
#    reads and with 127-byte ones (three entries and change) the bytes are
#    the same, so no entry is read twice or skipped;
#  - a position at 2^32 tables (2^52 slots, past every CPU) is the end of
#    the file: 0 bytes (the CPU number was 32-bit and wrapped to CPU 0's
#    table there);
#  - walking two million empty slots yields the CPU (no soft lockup in
#    dmesg; checked by the runner's oops and warning scan as well).
. ./functions.sh
trap cleanup_modules EXIT
load_mod dprof_workload
load_mod dprof target=dprof_workload sampler=inject history=0 sample_table=1048576
wl "alloc 4 0"
OBJ=$(wl_stat held_addr)
IP=$(hexadd "$(ksym vfs_read)" 16)
WORD=$(printf '%x' $(((0x01 << 2) | (0x02 << 5) | (0x01 << 19))))	# a load, L1 hit, snoop none
i=0
while [ $i -lt 32 ]; do
	echo "perf 1 $(hexadd "$OBJ" $((i * 8))) $IP $WORD 0"
	i=$((i + 1))
done >"$TMP/inject"
taskset 1 sh -c "cat $TMP/inject >$DPROF_DIR/inject" || fail "inject failed"
grep "^samples:" $DPROF_DIR/profile
f=$DPROF_DIR/samples
dd if=$f bs=65536 2>/dev/null >"$TMP/big"
dd if=$f bs=127 2>/dev/null >"$TMP/odd"
big=$(wc -c <"$TMP/big") odd=$(wc -c <"$TMP/odd")
echo "read: $big bytes in 64 KiB reads, $odd in 127-byte reads"
expect_eq "bytes of 32 entries" "$big" $((32 * 40))
cmp -s "$TMP/big" "$TMP/odd" || fail "127-byte reads gave other bytes than 64 KiB reads"
at=$(pread_at $f $(((1 << 52) + 5)) 4000) || fail "pread at 2^52 failed"
expect_eq "bytes at slot 2^52 + 5 (past every CPU's table)" "$at" 0
at=$(pread_at $f 5 4000) || fail "pread at 5 failed"
[ "$at" -gt 0 ] || fail "pread at slot 5 returned nothing"
dmesg | grep -q "soft lockup" && fail "soft lockup: $(dmesg | grep 'soft lockup' | head -n 1)"
echo "ok: 32 entries read whole at any read size; the file ends past the last CPU's table"
exit 0
