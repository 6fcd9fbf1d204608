#!/bin/sh
# Pause (enable=0) stops recording, not the ends of lives.  Objects
# allocated before the pause and freed during it must be seen leaving:
# their frees recorded, the live set emptied; otherwise the resolver
# counts the reused memory as the old objects and the allocations after
# the resume of the same addresses look like duplicates (missed frees).
# Objects allocated and freed while paused are not recorded at all.  The
# numbers follow from the commands below and the workload's FIFO of held
# objects (SLUB hands the freed addresses back out, so they are reused).
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/pause.dprof
enable=/sys/module/dprof/parameters/enable

load_mod dprof_workload
load_mod dprof target=dprof_workload
dprof-view record -o "$out" -- sh -c "
	echo 'alloc 300 0' >$WL_DIR/ctl &&     # recorded: 300 allocs
	echo 0 >$enable &&
	echo 'free 300 0' >$WL_DIR/ctl &&      # recorded: lives that began before
	echo 'alloc 200 0' >$WL_DIR/ctl &&     # not recorded: paused
	echo 'free 200 0' >$WL_DIR/ctl &&      # not recorded: never seen begin
	echo 1 >$enable &&
	echo 'alloc 100 0' >$WL_DIR/ctl &&     # recorded, at reused addresses
	echo 'free 100 0' >$WL_DIR/ctl         # recorded
" || fail "record failed"

expect_eq "workload allocs cpu0" "$(wl_stat allocs 0)" 600
expect_eq "workload misplaced ops" "$(wl_stat misplaced)" 0
# cpu: allocs frees remote_frees
expect_eq "cpu0 row" "$(objects_row "$out" dprof_workload 0)" "400 400 0"
summary=$(dprof-view objects "$out")
echo "$summary" | grep -q "live at end: 0; frees of objects allocated before the recording: 0" ||
	fail "lives left open by the pause: $(echo "$summary" | grep 'live at end')"
grep -q "^duplicate allocs (missed frees): 0$" "$DPROF_DIR/status" ||
	fail "$(grep '^duplicate allocs' "$DPROF_DIR/status")"
live=$(awk '/^live objects:/ { print $3 }' "$DPROF_DIR/status")
expect_eq "objects in the live set after the run" "$live" 0
unload_mod dprof
unload_mod dprof_workload
exit 0
