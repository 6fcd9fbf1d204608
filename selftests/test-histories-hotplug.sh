#!/bin/sh
# CPU hotplug during history collection: CPU 1 goes offline and comes back
# while objects are watched; collection goes on, nothing oopses, unload
# is clean.
. ./functions.sh
trap 'echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null; cleanup_modules' EXIT
cpu1=/sys/devices/system/cpu/cpu1/online
[ -w $cpu1 ] || skip "CPU 1 cannot be taken offline here"

complete() {
	awk '/^histories:/ { for (i = 1; i <= NF; i++) if ($i == "complete") print $(i - 1) }' \
		$DPROF_DIR/histories
}

load_mod dprof_workload
load_mod dprof target=dprof_workload
wl stress 0
loop_until '[ "$(complete)" -ge 3 ]' || fail "no histories before hotplug"
before=$(complete)
echo 0 >$cpu1 || fail "cannot offline CPU 1"
sleep 1
during=$(complete)
echo 1 >$cpu1 || fail "cannot online CPU 1"
loop_until '[ "$(complete)" -gt '"$during"' ]' ||
	fail "collection stopped after CPU 1 came back"
wl stop
echo "ok: complete histories $before before, $during with CPU 1 offline, $(complete) after"
cat $DPROF_DIR/histories
unload_mod dprof
unload_mod dprof_workload
exit 0
