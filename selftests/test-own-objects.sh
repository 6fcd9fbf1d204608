#!/bin/sh
# dprof's own perf events are not profiled as the workload's (own.c).
#
# Ground truth, from the setup: the busybox guest runs no perf user (the
# check below finds no perf file descriptor in any process), so before
# perf_user starts, every object of the perf_event cache that lives long
# is one of dprof's: a parked breakpoint per watched offset and CPU, and
# an in-use tick per CPU (module/watch.c, module/inuse.c).  The perf core
# touches the ticks on every tick and the breakpoints on every trap, and
# the in-use ticks find them in the registers of the perf code they
# interrupt: before own.c, the census counted them as the type's old
# objects (9 of them on 6.1) and windows watched them.
#  - Without a perf user: the status counts at least one own event per
#    online CPU and lookups that refused them; perf_event has no old
#    object and no window.
#  - With perf_user's four task-clock events (touched on every overflow,
#    every 100 us of its spinning, and at every context switch): windows
#    and samples come, so the refusal is not of the whole type.  (Not
#    necessarily as old objects: "old" is a mean over censuses 4 s apart,
#    and on the debug kernel it read 0 while windows drawn by use, young
#    windows and a life took 369 samples.)
. ./functions.sh
trap cleanup_modules EXIT
grep -q "^perf_event " /proc/slabinfo ||
	skip "this kernel has no perf_event slab cache"
for fd in /proc/[0-9]*/fd/*; do
	case $(readlink "$fd" 2>/dev/null) in
	*perf_event*) skip "a perf user runs here ($fd): the ground truth needs none" ;;
	esac
done
cpus=$(grep -c "^processor" /proc/cpuinfo)

# row FIELD: the perf_event row's FIELD of the profile's type table.
row() {
	awk -v f="$1" '
		$1 == "type" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "perf_event" && col[f] { print $(col[f]); exit }
	' $DPROF_DIR/profile
}

load_mod dprof target=perf_event sampler=watch
# Kernel work for the ticks to interrupt; then censuses over objects past
# history_timeout_ms (1 s), retaken every 250 ms while turns find nothing.
dd if=/dev/zero of=/dev/null bs=4k count=200000 2>/dev/null
sleep 3
own=$(grep "^own objects:" $DPROF_DIR/status)
echo "$own"
nown=$(echo "$own" | awk '{ print $3 }')
refused=$(echo "$own" | awk '{ print $8 }')
[ "${nown:-0}" -ge "$cpus" ] ||
	fail "status counts ${nown:-no} own events for $cpus CPUs: $own"
[ "${refused:-0}" -gt 0 ] ||
	fail "no lookup refused an own event: the ticks never saw them ($own)"
grep "^perf_event " $DPROF_DIR/profile
expect_eq "old perf_event objects without a perf user" "$(row old)" 0
expect_eq "perf_event windows without a perf user" "$(row windows)" 0
expect_eq "perf_event samples without a perf user" "$(row samples)" 0

# Up to three rounds of 4 s: a window drawn on an event perf_user has
# just closed, or on one it touches between windows, sees nothing (one
# window and no sample in one run of a 6.12 suite).
for round in 1 2 3; do
	perf_user -n 4 -d 4 >$TMP/perf_user.out &
	dd if=/dev/zero of=/dev/null bs=4k count=200000 2>/dev/null
	wait $! || fail "perf_user failed: $(cat $TMP/perf_user.out)"
	cat $TMP/perf_user.out
	grep "^perf_event " $DPROF_DIR/profile
	[ "$(row samples)" -gt 0 ] && break
done
[ "$(row windows)" -ge 1 ] ||
	fail "no window opened on perf_user's events"
[ "$(row samples)" -gt 0 ] ||
	fail "no sample on perf_user's events: the type was refused whole"
echo "ok: $nown own events left out ($refused lookups), perf_user's sampled ($(row samples) samples)"
unload_mod dprof
exit 0
