#!/bin/sh
# make demo: boot the reference kernel in QEMU, load dprof.ko on skbuffs,
# run real UDP traffic between two pinned processes, record, show; then,
# on the host, draw skbuff's data flow graph (DOT, and SVG with graphviz)
# and export the profile (pprof) and the histories (Chrome JSON trace).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${KERNEL:-6.1}
share=$top/build/demo
view=$top/build/dprof-view
mkdir -p "$share"
"$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 900 "$top/scripts/guest/demo-guest.sh"
echo
echo "== dprof-view flow skbuff.dprof skbuff_head_cache  (data flow graph, on the host)"
"$view" flow --dot -o "$share/skbuff-flow.dot" "$share/skbuff.dprof" skbuff_head_cache
echo "DOT: $share/skbuff-flow.dot ($(grep -c -- '->' "$share/skbuff-flow.dot") edges, $(grep -c 'color=red' "$share/skbuff-flow.dot") of them CPU changes)"
if "$view" flow --svg "$share/skbuff-flow.svg" "$share/skbuff.dprof" skbuff_head_cache; then
	echo "SVG: $share/skbuff-flow.svg"
fi
echo
echo "== dprof-view profile --svg  (sk_buff's cache lines as a heat map)"
"$view" profile --svg "$share/skbuff-heatmap.svg" -t skbuff_head_cache "$share/skbuff.dprof" ||
	echo "(no heat map: no skbuff samples in this run)"
echo
echo "== dprof-view export  (for pprof, and for Perfetto / chrome://tracing / speedscope)"
"$view" export --pprof "$share/skbuff.pb.gz" "$share/skbuff.dprof" ||
	echo "(no pprof export: the recording holds no samples)"
"$view" export --perfetto "$share/skbuff-histories.json" "$share/skbuff.dprof" ||
	echo "(no trace export: the recording holds no histories)"
echo "  pprof -top $share/skbuff.pb.gz; open $share/skbuff-histories.json in ui.perfetto.dev"
echo
echo "The recording is on the host: $share/skbuff.dprof"
for v in "profile" "classify" "paths" "histories" "objects" "flow --svg flow.svg"; do
	case $v in
	flow*) echo "  $view $v $share/skbuff.dprof skbuff_head_cache" ;;
	*) echo "  $view $v $share/skbuff.dprof" ;;
	esac
done
