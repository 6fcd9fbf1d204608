#!/bin/sh
# CPU hotplug during history collection.  Part 1: CPU 1 goes offline and
# comes back under a stress load; collection goes on, nothing oopses.
# Part 2 proves CPU 1 is armed when it comes back, both for the watch
# running at that moment and for the ones after.  The workload's free
# path, list_del(), reads and writes the object's link field (offsets 16
# and 24 of struct dprof_workload_obj, the only ones watched here) on the
# freeing CPU, and only that CPU's debug registers can report it:
#  - with CPU 1 offline, objects allocated on CPU 0 are held until one is
#    the watched one (armed on CPU 0 alone); CPU 1 comes back; the held
#    objects are freed on CPU 1.  That history must end flagged
#    cpus-changed and hold accesses made on CPU 1: the hotplug callback
#    armed the running watch on CPU 1;
#  - then objects are handed off, allocated on CPU 0 and freed on CPU 1:
#    a later history must hold accesses on CPU 1 and not be flagged.
. ./functions.sh
cpu1=/sys/devices/system/cpu/cpu1/online
trap 'echo 1 >$cpu1 2>/dev/null; [ -d $WL_DIR ] && echo stop >$WL_DIR/ctl; cleanup_modules' EXIT
[ -w $cpu1 ] || skip "CPU 1 cannot be taken offline here"
out=$TMP/hotplug.dprof

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
grep "registers rewritten behind dprof" $DPROF_DIR/histories
unload_mod dprof

wl reset
load_mod dprof target=dprof_workload history_offsets=16,24 \
	history_timeout_ms=4000
cat >"$TMP/hotplug-run.sh" <<'EOS'
. /selftests/functions.sh
cpu1=/sys/devices/system/cpu/cpu1/online
complete() {
	awk '/^histories:/ { for (i = 1; i <= NF; i++) if ($i == "complete") print $(i - 1) }' \
		$DPROF_DIR/histories
}
echo 0 >$cpu1 || fail "cannot offline CPU 1"
loop_until 'wl "alloc 1 0"; grep -q "^histories: watching" $DPROF_DIR/histories' ||
	fail "no held object was watched"
echo 1 >$cpu1 || fail "cannot online CPU 1"
wl "free $(wl_stat held) 1"	# the watched one among them, on CPU 1
start=$(complete)
for i in $(seq 100); do
	wl "handoff 10 0 1"
	[ "$(complete)" -ge $((start + 3)) ] && exit 0
done
fail "fewer than 3 histories after CPU 1 came back: $(grep '^histories:' $DPROF_DIR/histories)"
EOS
dprof-view record -o "$out" -- sh "$TMP/hotplug-run.sh" ||
	fail "the hand-off run failed"
dprof-view histories --script "$out" >"$TMP/hotplug.txt" ||
	fail "histories --script failed"
# history ID T offsets O alloc_cpu C end_cpu C lifetime_ns N end R
#   complete X dropped N addr A alloc_ns T flags F
# access ID OFFSET CPU RW TIME_NS ...
result=$(awk '
$1 == "history" { n++; id[n] = $2; begin[$2] = $21; end[$2] = $21 + $11
	flags[$2] = $23; reason[$2] = $13; next }
$1 == "access" && $4 == 1 { on1[$2]++ }
END {
	# The first history flagged cpus-changed is the one across the hotplug.
	for (i = 1; i <= n; i++)
		if (flags[id[i]] ~ /cpus-changed/) { across = id[i]; break }
	if (across == "") { print "none flagged cpus-changed"; exit }
	for (i = 1; i <= n; i++) {
		h = id[i]
		if (begin[h] > end[across] && reason[h] == "freed" && on1[h] &&
		    flags[h] !~ /cpus-changed/)
			after++
	}
	printf "history %s across the hotplug flagged %s, %d accesses on CPU 1; %d later histories with accesses on CPU 1\n", across, flags[across], on1[across], after
}' "$TMP/hotplug.txt")
echo "$result"
grep "registers rewritten behind dprof" $DPROF_DIR/histories
case "$result" in
*"none flagged"*) fail "no history was flagged cpus-changed across the hotplug" ;;
*", 0 accesses on CPU 1"*) fail "the watch running when CPU 1 came back was not armed there" ;;
*"; 0 later"*) fail "no access from CPU 1 after it came back: its registers were not re-armed" ;;
esac
unload_mod dprof
unload_mod dprof_workload
exit 0
