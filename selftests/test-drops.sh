#!/bin/sh
# A full ring never blocks: records that do not fit are counted, and what
# a recording holds plus what the module dropped is exactly what the
# workload did.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/drops.dprof

load_mod dprof_workload
# sampler=off: no sample window writes its record into the count below
load_mod dprof target=dprof_workload ring_kb=64 history=0 sampler=off track_one_in=1
wl "churn 20000 0"          # 40000 records of 32 bytes: far over 64 KiB
dropped=$(cat "$DPROF_DIR/dropped")
[ "$dropped" -gt 0 ] || fail "a 64 KiB ring took 40000 records without drops"
grep -q "^dropped: $dropped" "$DPROF_DIR/status" || fail "status does not show the drops"
dprof-view record --progress -o "$out" -d 0.5 2>"$TMP/progress" ||
	fail "record failed: $(cat "$TMP/progress")"
records=$(dprof-view info --json "$out" | awk -F': ' '/"total"/ { gsub(",", "", $2); print $2 }')
module_dropped=$(dprof-view info --json "$out" | awk -F': ' '/"module_dropped"/ { gsub(",", "", $2); print $2 }')
echo "records $records + dropped $module_dropped"
[ "$((records + module_dropped))" = 40000 ] || dprof-view info "$out"
expect_eq "records + dropped" "$((records + module_dropped))" 40000
# The progress line (--progress; by default only on a terminal) ends
# with the totals the file holds.
last=$(tr '\r' '\n' <"$TMP/progress" | grep "^\[ recording" | tail -n 1)
echo "last progress line: $last"
expect_eq "progress: records, drops" \
	"$(echo "$last" | sed -n 's/.*: \([0-9]*\) records .*, dropped \([0-9]*\),.*/\1 \2/p')" \
	"$records $module_dropped"
dprof-view record -o "$TMP/quiet.dprof" -d 0.2 2>"$TMP/quiet" || fail "record failed"
grep -q "recording" "$TMP/quiet" && fail "a progress line on a stderr that is no terminal"
dprof-view objects "$out" | grep -q "^warning: $module_dropped records lost" ||
	fail "objects does not warn about the loss"
unload_mod dprof
unload_mod dprof_workload
exit 0
