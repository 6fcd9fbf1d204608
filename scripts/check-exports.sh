#!/bin/sh
# make check: dprof-view export's files, written in the guest by
# selftests/test-exports.sh into build/vmshare/exports/KERNEL/, read by
# tools nobody here wrote:
#  - pprof, built offline from Debian's golang-github-google-pprof-dev
#    sources: `pprof -top` of each sample type must total the injection
#    plan, function by function (check-exports.py pprof-totals);
#  - the Chrome JSON trace: the format's rules and dprof_sharing's source
#    (check-exports.py trace), then speedscope (npm) in headless Chromium
#    imports it as a user would (speedscope-shot.js); its screenshots are
#    left beside the trace;
#  - profile --svg's heat map of the same recording: its labels against
#    dprof_sharing's source (check-exports.py heatmap), rendered to PNG in
#    Chromium (svg-to-png.js) beside it; it and flow --svg's graph with
#    no text past the picture's edge (svg-fit.js, Chromium's fonts).
# Run after the guest selftests; needs scripts/install-deps.sh's packages.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exports=$top/build/vmshare/exports
tools=$top/build/export-readers
SPEEDSCOPE_VERSION=1.25.0
PLAYWRIGHT_VERSION=1.65.1

mkdir -p "$tools"
if [ ! -x "$tools/pprof" ]; then
	[ -d /usr/share/gocode/src/github.com/google/pprof ] || {
		echo "check-exports: no pprof sources: apt-get install golang-github-google-pprof-dev (scripts/install-deps.sh)" >&2
		exit 1
	}
	GO111MODULE=off GOFLAGS= GOPATH="$tools/gopath:/usr/share/gocode" \
		GOCACHE="$tools/gocache" go build -o "$tools/pprof" github.com/google/pprof
fi
if [ ! -f "$tools/npm/node_modules/speedscope/package.json" ] ||
   [ ! -f "$tools/npm/node_modules/playwright-core/package.json" ]; then
	npm install --prefix "$tools/npm" --no-audit --no-fund --loglevel=error \
		"speedscope@$SPEEDSCOPE_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
fi
index=$tools/npm/node_modules/speedscope/dist/release/index.html

n=0
for d in "$exports"/*/; do
	d=${d%/}
	[ -f "$d/inject.plan" ] || continue
	n=$((n + 1))
	echo "--- $(basename "$d")"
	for t in samples misses latency; do
		"$tools/pprof" -sample_index=$t -top "$d/inject.pb.gz" >"$d/pprof-top-$t.txt"
	done
	sed -n '1,10p' "$d/pprof-top-misses.txt"
	python3 "$top/scripts/check-exports.py" pprof-totals "$d/inject.plan" \
		"$d/pprof-top-samples.txt" "$d/pprof-top-misses.txt" \
		"$d/pprof-top-latency.txt"
	python3 "$top/scripts/check-exports.py" trace "$d/sharing.json" \
		"$d/sharing.complete" "$(cat "$d/sharing.iters")"
	kver=$(basename "$d")
	"$top/build/dprof-view" profile --svg "$d/sharing-heatmap.svg" \
		-T dprof_sharing=dprof_sharing_obj \
		-D "$top/build/mod-$kver/dprof_sharing.ko" "$d/sharing.dprof"
	python3 "$top/scripts/check-exports.py" heatmap "$d/sharing-heatmap.svg"
	NODE_PATH=$tools/npm/node_modules node "$top/scripts/svg-to-png.js" \
		"$d/sharing-heatmap.svg" "$d/sharing-heatmap.png"
	echo "heat map: $d/sharing-heatmap.png"
	# No text past a picture's edge, with Chromium's fonts: the heat
	# map, and the flow graph graphviz lays out from its own metrics.
	"$top/build/dprof-view" flow --svg "$d/sharing-flow.svg" \
		"$d/sharing.dprof" dprof_sharing
	NODE_PATH=$tools/npm/node_modules node "$top/scripts/svg-fit.js" \
		"$d/sharing-heatmap.svg" "$d/sharing-flow.svg"
	tracks=$(python3 -c 'import json, sys
print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"]
          if e["ph"] == "M" and e["name"] == "thread_name"))' "$d/sharing.json")
	NODE_PATH=$tools/npm/node_modules node "$top/scripts/speedscope-shot.js" \
		"$index" "$d/sharing.json" "$tracks" \
		"dprof_sharing #$(head -n 1 "$d/sharing.complete" | cut -d " " -f 1)" "$d/speedscope"
done
if [ "$n" -eq 0 ]; then
	echo "check-exports: no exports in $exports: selftests/test-exports.sh did not run or failed" >&2
	exit 1
fi
echo "check-exports: $n kernels' exports read by pprof and speedscope"
