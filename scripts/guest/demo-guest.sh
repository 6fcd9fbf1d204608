#!/bin/sh
# The demo, inside the guest: profile skbuff_head_cache while real UDP
# traffic flows over loopback from a process on CPU 0 to one on CPU 1,
# then show the finding in one screen.  Every view's whole output goes
# to /host/demo-full.txt, beside the recording; the screen shows the
# one table of each view that tells the finding (scripts/demo.sh).
set -e
rec=/host/skbuff.dprof
full=/host/demo-full.txt
: >"$full"
# full TITLE CMD...: CMD's whole output into the full file, under TITLE.
full() {
	title=$1
	shift
	{ echo; echo "== $title"; "$@"; } >>"$full" 2>&1
}
echo "== dprof demo: Linux $(uname -r), $(nproc) vCPUs, QEMU TCG: no IBS or PEBS, so accesses are sampled by debug registers and misses estimated"
modload /lib/modules/dprof/dprof.ko target=skbuff
full "calibrated layout (status)" sed -n '/^targets:/,/^live objects/p' /sys/kernel/debug/dprof/status
echo "== ran: insmod dprof.ko target=skbuff; dprof-view record -- udp_flood: UDP over loopback, sender on CPU 0, receiver on CPU 1, 3 s"
dprof-view record --no-progress -o $rec -l "UDP loopback cpu0 -> cpu1" -- \
	udp_flood -s 0 -r 1 -d 3 -l 256 2>&1 | grep -v "^dprof-view .*: objects are a sample"
full "dprof-view info" dprof-view info $rec
full "dprof-view objects (the address set)" dprof-view objects $rec
full "dprof-view histories (object access histories, debug registers)" dprof-view histories $rec
full "the data profile as dprof.ko prints it (/sys/kernel/debug/dprof/profile)" cat /sys/kernel/debug/dprof/profile
full "dprof-view profile" dprof-view profile $rec
full "dprof-view classify" dprof-view classify $rec
full "dprof-view classify --combined" dprof-view classify --combined $rec
full "dprof-view workingset" dprof-view workingset $rec
full "dprof-view paths" dprof-view paths $rec
full "dprof-view flow --all skbuff_head_cache" dprof-view flow --all $rec skbuff_head_cache
full "dprof-view advise skbuff_head_cache" dprof-view advise $rec skbuff_head_cache
full "history collection (/sys/kernel/debug/dprof/histories)" cat /sys/kernel/debug/dprof/histories
full "the module's status" cat /sys/kernel/debug/dprof/status

echo
echo "== found: skbuffs built on CPU 0 are freed on CPU 1 (dprof-view objects)"
dprof-view objects $rec 2>/dev/null | grep -E "^  (cpu|0|1) |freed on another CPU|lifetime"
echo
echo "== which lines move: sk_buff per cache line, from $(dprof-view classify $rec 2>/dev/null | sed -n 's/.*estimated from \([0-9]*\) complete histories.*/\1/p') object histories (dprof-view classify -L)"
dprof-view classify -L $rec 2>/dev/null | sed -n '/per cache line/,/^$/p' | sed '1d;/^$/d;s/ *$//'
echo "   handoff: the line goes to the other CPU in most lives (moved), with no invalidation: a hand-off, not sharing"
echo
echo "== where in the code: the edges where an skbuff changes CPU, with the histories that took each (dprof-view flow; the picture below)"
dprof-view flow -H 0 $rec skbuff_head_cache 2>/dev/null | grep -E "^ +[0-9]+ => " | sort -k4 -n -r
echo
echo "== the hottest fields by sampled accesses (dprof-view profile; misses are estimated, not measured here)"
dprof-view profile $rec 2>/dev/null >/tmp/demo-profile.txt
grep -m1 "^  offset" /tmp/demo-profile.txt
awk '/^  offset/ { on = 1; next } on && /^ +[0-9]/' /tmp/demo-profile.txt |
	sort -k5 -n -r -s | head -n 8 | sort -k1 -n
echo
echo "== cache footprint (dprof-view workingset)"
dprof-view workingset $rec 2>/dev/null | grep -E "^(capacity|conflict):"
echo
echo "== what dprof.ko cost (status: calls and cycles per hook; instructions are estimates outside -icount)"
sed -n '/^  hook /,/^  perf:inuse-tick/p' /sys/kernel/debug/dprof/status | grep -v " 0 *0 *0 *0 "
grep -m1 "^dropped" /sys/kernel/debug/dprof/status || true
rmmod dprof
