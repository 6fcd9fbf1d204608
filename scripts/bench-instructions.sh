#!/bin/sh
# Instructions executed by each of dprof-view's analyses, counted by
# valgrind's callgrind (this machine has no hardware counters; perf stat
# -e instructions says "not supported"), so that the userspace figures
# repeat exactly from run to run where wall time on a shared machine moves
# by some 20%.  The recording is bench-view's at a tenth of its size
# (1 M samples, 5,000 histories, 10,000 objects): callgrind runs some 30x
# slower than the program, and the per-unit counts barely move with size
# (scripts/bench-scale.sh shows how time grows).
#
#   scripts/bench-instructions.sh BENCH_VIEW
set -e
bv=${1:?usage: bench-instructions.sh BENCH_VIEW}
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
	echo "bench-instructions: valgrind is not installed (apt-get install valgrind)" >&2
	exit 2
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-instr.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# bench-view's own exit (the memory bound, meant for the full size) is
# not this script's business.
BENCH_SIM_RUNS=1 valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
	"$bv" 1000000 5000 10000 >"$dir/bv.txt" 2>"$dir/vg.txt" || true
grep -q "^cache simulation" "$dir/bv.txt" || {
	echo "bench-instructions: bench-view did not finish under valgrind:" >&2
	tail -n 5 "$dir/vg.txt" >&2
	exit 1
}
callgrind_annotate --inclusive=yes --threshold=100 "$dir/cg.out" >"$dir/incl.txt" 2>/dev/null
# Units per stage from bench-view's own report of the same run.
awk '
	FILENAME ~ /bv.txt$/ {
		if (/^synthetic recording/) {
			samples = $5; elems = $7; objs = $12
			gsub(/,/, "", samples); gsub(/,/, "", elems); gsub(/,/, "", objs)
		}
		if (/^load, parse/) { split($0, a, "M records/s"); }
		if (/^cache simulation/) { acc = $0; sub(/ accesses,.*/, "", acc); sub(/.* /, "", acc) }
		if (/^combined traces/) { st = $0; sub(/.*traces, /, "", st); sub(/ steps.*/, "", st) }
		next
	}
	{
		n = $1; gsub(/,/, "", n)
		if ($0 ~ /:recording_load \[/) ir["load"] = n
		if ($0 ~ /:raw_samples_aggregate \[/) ir["aggregate"] = n
		if ($0 ~ /:histories_build \[/) ir["histories"] += n
		if ($0 ~ /:paths_build \[/) ir["histories"] += n
		if ($0 ~ /:combine_build \[/) ir["combine"] = n
		if ($0 ~ /:objects_summarize \[/) ir["objects"] = n
		if ($0 ~ /:workingset_build \[/) ir["workingset"] = n
		if ($0 ~ /:cachesim_run \[/) ir["cachesim"] = n
		if ($0 ~ /PROGRAM TOTALS/) total = n
	}
	END {
		printf "instructions per analysis (callgrind, bench-view 1000000 5000 10000: %d samples, %d history elements, %d objects)\n", samples, elems, objs
		printf "%-28s %15s %12s %s\n", "stage", "instructions", "per unit", "unit"
		row("load, parse and validate", ir["load"], samples + elems + 2 * objs + elems / 20 * 2, "record")
		row("aggregate raw samples", ir["aggregate"], samples, "sample")
		row("histories and path traces", ir["histories"], elems, "history element")
		row("combined traces", ir["combine"], st, "path step")
		row("address set", ir["objects"], 2 * objs, "alloc/free event")
		row("cache simulation", ir["cachesim"], acc, "simulated access")
		row("working set", ir["workingset"], 0, "")
		printf "%-28s %15s\n", "whole run (with writing)", total
		printf "histories and the address set read the whole file (samples too), and their per-unit figures carry that walk\n"
	}
	function row(name, n, units, unit) {
		if (units > 0)
			printf "%-28s %15d %12.1f %s\n", name, n, n / units, unit
		else
			printf "%-28s %15d\n", name, n
	}' "$dir/bv.txt" "$dir/incl.txt"
