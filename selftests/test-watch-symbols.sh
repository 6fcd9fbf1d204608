#!/bin/sh
# watch_symbols=: a kernel variable's sharing, against ground truth.
#
# dprof_sharing's "global" rounds (modules/dprof_sharing.c): kthreads on
# CPUs 0 (A) and 1 (B), in lockstep, each iteration
#   dprof_sharing_global.both    (offset 0)   atomic_long_inc by A, then B
#   dprof_sharing_global.a_only  (offset 64)  atomic_long_inc by A alone
# so every access to "both" after the first of a watch follows the other
# CPU's locked write of the same bytes: true sharing; "a_only" is written
# by one CPU only: neither.  The variable is not exported: dprof-view
# load finds its address in /proc/kallsyms (the module opens no file),
# dprof watches it sample_window_ms at a time (histories that end with
# reason "window"), and classify replays those watches like object
# histories.  The fields are named from the module's DWARF, by the
# variable's declared type (no --type mapping).
#
# Bad input first, each one line and a status:
#  - refused by dprof-view load (exit 2): an unknown symbol, a function, a
#    per-CPU variable;
#  - refused by the module (exit 1, EINVAL, with the module's line): a
#    name without its address (insmod directly); an address that is not
#    the symbol's start; a variable not aligned to history_len; and
#    __per_cpu_offset, which the CPU's entry code reads (paranoid_entry()
#    fetches GSBASE from it): perf refuses a breakpoint there
#    (hw_breakpoint_arch_parse(), within_cpu_entry()), since its #DB
#    would loop.  dprof writes the debug registers itself, so it must ask
#    perf first; before it did, watch_symbols=__per_cpu_offset/64 armed
#    it on every CPU.
. ./functions.sh
trap cleanup_modules EXIT
stats=/sys/kernel/debug/dprof_sharing/stats
out=$TMP/global.dprof

# dload STATUS PARAMS...: dprof-view load must end with STATUS; its
# output (stdout and stderr) in $TMP/dload.
dload() {
	want=$1
	shift
	dprof-view load --module "$MODDIR/dprof.ko" "$@" >"$TMP/dload" 2>&1
	got=$?
	cat "$TMP/dload"
	[ "$got" -eq "$want" ] || fail "dprof-view load $* ended with $got, expected $want"
	[ "$want" -eq 0 ] || [ ! -d /sys/module/dprof ] || fail "dprof loaded despite the error"
}
said() { grep -q "$1" "$TMP/dload" || fail "dprof-view load did not say '$1'"; }

load_mod dprof_sharing
log_canary
dload 2 target=dprof_sharing watch_symbols=dprof_no_such_variable
said "watch_symbols=dprof_no_such_variable: no such symbol in /proc/kallsyms"
dload 2 target=dprof_sharing watch_symbols=vfs_read
said "watch_symbols=vfs_read: a symbol of type 'T', not a variable"
dload 2 target=dprof_sharing watch_symbols=runqueues
said "watch_symbols=runqueues: a per-CPU variable"
expect_load_error 22 dprof target=dprof_sharing watch_symbols=jiffies
dmesg_since_canary | grep -q "watch_symbols=jiffies: no address: give jiffies@ADDRESS" ||
	fail "no message for a name without its address"
jiffies=$(ksym jiffies)
dload 1 target=dprof_sharing "watch_symbols=jiffies@0x$(hexadd "$jiffies" 8)"
said "not the start of jiffies"
dload 1 target=dprof_sharing watch_symbols=__per_cpu_offset/64
said "watch_symbols=__per_cpu_offset: perf refuses a breakpoint at +0"
# A data symbol of the kernel image whose address is not a multiple of 8.
odd=$(awk '$2 ~ /^[dDbB]$/ && NF == 3 && $1 ~ /[13579bdf]$/ { print $3; exit }' /proc/kallsyms)
if [ -n "$odd" ]; then
	dload 1 target=dprof_sharing "watch_symbols=$odd/1"
	said "watch_symbols=$odd: at 0x[0-9a-f]*, not aligned to history_len=8"
else
	echo "no kernel variable at an odd address: the alignment check not run"
fi
dload 0 target=dprof_sharing watch_symbols=jiffies
said "loaded $MODDIR/dprof.ko: target=dprof_sharing watch_symbols=jiffies@0x$jiffies"
unload_mod dprof
# The variable is the last symbol of the module's bss on 6.1: kallsyms
# gives it a wrapped size, and dprof asks for name/SIZE.
if dprof-view load --module "$MODDIR/dprof.ko" target=dprof_sharing \
	watch_symbols=dprof_sharing_global >/dev/null 2>&1; then
	echo "kallsyms has a size for dprof_sharing_global"
	unload_mod dprof
else
	dmesg_since_canary | grep -q "give the size as dprof_sharing_global@ADDRESS/SIZE" ||
		fail "no message for a variable without a usable size"
fi
dmesg_since_canary | grep "watch_symbols="

BOTH=$(awk '$1 == "global_offset" && $2 == "both" { print $3 }' $stats)
AONLY=$(awk '$1 == "global_offset" && $2 == "a_only" { print $3 }' $stats)
[ -n "$AONLY" ] || fail "dprof_sharing's stats lack the global's offsets"

# Only the variable is watched: no histories of objects, no sampler.
# 128: sizeof(struct dprof_sharing_globals).
dload 0 target=dprof_sharing history=0 sampler=off \
	watch_symbols=dprof_sharing_global/128
grep "variable" $DPROF_DIR/status
# The workload runs back to back in the background while the watches
# take their turns; the check for 24 watches runs apart, every 0.2 s.
# When the check ran between the rounds (an awk after every 40 ms of
# rounds), the watches' turns could fall into step with the gaps it made:
# in four runs one field's 7 histories all fell between rounds and saw
# nothing.  The writer loop forks nothing (echo and test are the shell's
# own), so the rounds leave no gap for a watch to fall into.
cat >"$TMP/global-run.sh" <<EOS
ctl=/sys/kernel/debug/dprof_sharing/ctl
stop=$TMP/global-stop
rm -f "\$stop"
( while [ ! -e "\$stop" ]; do
	echo "global 10 200 0 1 20" >"\$ctl" || exit 1
done ) &
writer=\$!
for i in \$(seq 1500); do
	sleep 0.2
	n=\$(awk '\$1 == "variable" && \$2 == "watches:" { print \$5 }' \\
		/sys/kernel/debug/dprof/histories)
	[ "\${n:-0}" -ge 24 ] && break
done
touch "\$stop"
wait \$writer
EOS
dprof-view record -o "$out" -- sh "$TMP/global-run.sh" ||
	fail "recording the global workload failed"
grep -E "^variable watches|hits:" $DPROF_DIR/histories
unload_mod dprof
grep "^global " $stats

dprof-view histories --script "$out" |
	awk '$1 == "history" { n[$0 ~ / window / ? "window" : "other"]++ }
	     END { printf "histories: %d window, %d other\n", n["window"], n["other"] }'
names="--debug $MODDIR/dprof_sharing.ko"
dprof-view classify $names "$out" | tee "$TMP/global-classify.txt" ||
	fail "classify failed"
for f in "$BOTH:both" "$AONLY:a_only"; do
	off=${f%%:*} name=${f#*:}
	awk -v o="$off" -v n="$name" '$1 == o && $2 == n { ok = 1 } END { exit !ok }' \
		"$TMP/global-classify.txt" ||
		fail "offset $off is not named $name from the variable's type"
done
echo "ok: fields named from the variable's declared type"
dprof-view classify --script -t dprof_sharing_global "$out" >"$TMP/classes" ||
	fail "classify -t dprof_sharing_global failed"
row() { awk -v o="$1" '$1 == "field" && $3 == o' "$TMP/classes"; }
judge() {	# OFFSET NAME EXPECTED
	set -- "$1" "$2" "$3" $(row "$1")
	[ $# -gt 3 ] || fail "no classification for dprof_sharing_global+$1"
	echo "$2: $4 $5 $6 $7 $8 $9"
	expect_eq "dprof_sharing_global.$2 label" "$7" "$3"
}
judge "$BOTH" both true-sharing
judge "$AONLY" a_only neither
unload_mod dprof_sharing
exit 0
