#!/bin/sh
# How dprof-view's analyses grow with the recording: bench-view's
# synthetic recording at 1x, 4x and 16x (samples, histories and objects
# all multiplied), each in its own process so that its peak memory is its
# own.  Per stage: seconds and peak resident MB at each size, and the
# exponent of time over size between 1x and 16x (1.0 is linear).
# Wall time on a shared machine moves by some 20% from run to run; the
# exponent is what to read.  16x writes a 5.5 GB file to $TMPDIR.
#
#   scripts/bench-scale.sh BENCH_VIEW [FACTORS...]
set -e
bv=${1:?usage: bench-scale.sh BENCH_VIEW [FACTORS...]}
shift
[ $# -gt 0 ] || set -- 1 4 16
out=$(mktemp "${TMPDIR:-/tmp}/bench-scale.XXXXXX")
trap 'rm -f "$out"' EXIT
for k in "$@"; do
	echo "bench-view at ${k}x ..." >&2
	# bench-view fails when memory passes 0.5x the file; here the
	# figures are wanted whatever they are.
	BENCH_SIM_RUNS=1 "$bv" $((10000000 * k)) $((50000 * k)) $((100000 * k)) |
		awk -v k="$k" '
		/^synthetic recording/ { printf "%s|file|%s|0\n", k, $3 }
		/ s .*\[peak rss/ {
			stage = substr($0, 1, 34); sub(/ +$/, "", stage)
			rest = substr($0, 35); split(rest, f, " ")
			rss = $0; sub(/.*\[peak rss /, "", rss); sub(/ MB\]/, "", rss)
			printf "%s|%s|%s|%s\n", k, stage, f[1], rss
		}' >>"$out" || true
done
awk -F'|' -v factors="$*" '
	BEGIN { nf = split(factors, fac, " ") }
	{ if (!(($2) in seen)) { seen[$2] = 1; order[++n] = $2 }
	  t[$1, $2] = $3; m[$1, $2] = $4 }
	END {
		printf "%-28s", "stage"
		for (i = 1; i <= nf; i++) printf " %15s", fac[i] "x s / MB"
		printf " %9s\n", "exponent"
		for (o = 1; o <= n; o++) {
			s = order[o]
			printf "%-28s", (s == "file" ? "recording (MB)" : s)
			for (i = 1; i <= nf; i++)
				if (s == "file") printf " %15s", t[fac[i], s]
				else printf " %7.3f/%7.0f", t[fac[i], s], m[fac[i], s]
			lo = t[fac[1], s]; hi = t[fac[nf], s]
			if (s != "file" && lo > 0.005 && hi > 0 && fac[nf] > fac[1])
				printf " %9.2f", log(hi / lo) / log(fac[nf] / fac[1])
			else if (s != "file")
				printf " %9s", "(too short)"
			printf "\n"
		}
	}' "$out"
