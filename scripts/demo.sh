#!/bin/sh
# make demo: boot the reference kernel in QEMU, load dprof.ko on skbuffs,
# run real UDP traffic between two pinned processes, record, and show
# the finding in one screen (scripts/guest/demo-guest.sh); then, on the
# host, draw skbuff's data flow graph (SVG with graphviz) and the heat
# map, and export the profile (pprof) and the histories (Chrome JSON
# trace).  Every view's whole output is in build/demo/demo-full.txt.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${KERNEL:-6.1}
share=$top/build/demo
view=$top/build/dprof-view
rec=$share/skbuff.dprof
mkdir -p "$share"
"$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 900 "$top/scripts/guest/demo-guest.sh" |
	grep -v "reboot: Power down"
# quiet: the note on sampled objects was said in the guest
{
	"$view" flow --dot -o "$share/skbuff-flow.dot" "$rec" skbuff_head_cache
	"$view" flow --all --dot -o "$share/skbuff-flow-all.dot" "$rec" skbuff_head_cache
	"$view" flow --svg "$share/skbuff-flow.svg" "$rec" skbuff_head_cache &&
		echo "flow: $share/skbuff-flow.svg"
	"$view" profile --svg "$share/skbuff-heatmap.svg" -t skbuff_head_cache "$rec" ||
		echo "(no heat map: no skbuff samples in this run)"
	"$view" export --pprof "$share/skbuff.pb.gz" "$rec" ||
		echo "(no pprof export: the recording holds no samples)"
	"$view" export --perfetto "$share/skbuff-histories.json" "$rec" ||
		echo "(no trace export: the recording holds no histories)"
} >"$share/demo-host.txt" 2>&1
echo
echo "== pictures and exports (build/demo/)"
echo "  skbuff-flow.svg       the functions around the CPU change (flow --all: skbuff-flow-all.dot, the whole graph)"
echo "  skbuff-heatmap.svg    sk_buff's cache lines, shaded by sampled accesses"
echo "  skbuff.pb.gz          pprof -top build/demo/skbuff.pb.gz"
echo "  skbuff-histories.json open in ui.perfetto.dev: each skbuff's life, CPU changes marked"
echo "  demo-full.txt         every view's whole output"
if grep -q "not installed\|failed\|no heat map\|no pprof\|no trace" "$share/demo-host.txt"; then
	echo "  (some were not made: $share/demo-host.txt says why)"
fi
echo
v=build/dprof-view r=build/demo/skbuff.dprof
echo "== next: the views on this recording (dprof-view COMMAND --help says what each shows)"
echo "  $v classify $r          sharing and hand-offs per field and line"
echo "  $v histories --id N $r  one skbuff from allocation to free"
echo "  $v paths $r             histories merged by execution path"
echo "  $v advise $r skbuff     a field order, and its what-if"
echo "  make case-memcached     target=all on a real server (Debian's memcached in the guest)"
