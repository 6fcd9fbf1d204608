#!/bin/sh
# The loop closed on ground truth (issue "From diagnosis to fix", item 3):
# dprof_sharing's struct, whose sharing its source makes certain
# (selftests/modules/dprof_sharing.c: shared_count written by both CPUs,
# written_by_a and written_by_b on one line each written by one CPU,
# read_mostly, private_count), profiled, laid out again by dprof-view
# advise, rebuilt from advise's output by a program, and measured again,
# by dprof and by the referee.
#
#   scripts/check-advise-loop.sh [-k KERNEL]
#
#  1. the guest records the lockstep rounds on the module as written,
#     every pair of the five fields watched (history_mode=pairs);
#  2. dprof-view advise proposes an order; scripts/advise-to-c.py turns
#     its --json into the struct (static asserts of every offset), and
#     the module is built again as dprof_sharing_adv (cache
#     dprof_sharing_adv) with it;
#  3. the guest records the same rounds on that build, the five fields at
#     their new offsets;
#  4. the guard (item 5): advise --against a build's .ko --check passes
#     the new layout against the first recording and, swapped, fails the
#     old layout against the second; --layout with the proposal's JSON
#     replays exactly what the proposal's what-if said;
#  5. the referee (a QEMU plugin that sees every access through a
#     coherent cache model, Documentation/referee.rst) measures the same
#     rounds on both builds in one boot, without dprof.ko.
# The recordings run under -icount (DPROF_ICOUNT=1: guest time counts
# instructions, so the lockstep rounds repeat exactly); the referee's
# boot is multi-threaded TCG, as in check-referee.sh.
# Fails when advise keeps today's order or a line with two CPUs' writes;
# when dprof's measurement of the new build (advise's replay of its
# histories at their own offsets) shows false sharing or differs from
# the what-if's prediction beyond the intervals; or when the referee
# does not see the false sharing of the first build (90 % of an access a
# CPU and iteration) gone in the second (at most 2 a round, the memory's
# reuse).  Output and files in build/advise-loop-KVER/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
while getopts k: o; do
	case $o in
	k) kernel=$OPTARG ;;
	*) sed -n '10,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
kver=$("$top/scripts/kernel.sh" "$kernel")
kdir=${KDIR_ADVISE:-/lib/modules/$kver/build}
out=$top/build/advise-loop-$kver
view=$top/build/dprof-view
rm -rf "$out"
mkdir -p "$out/mod"
fields=shared_count,written_by_a,written_by_b,read_mostly,private_count

echo "== 1. the module as written: recording"
DPROF_ICOUNT=1 "$top/scripts/vm.sh" -k "$kernel" -s "$out" -t 900 \
	"$top/selftests/referee/guest-advise-loop.sh" record \
	dprof_sharing dprof_sharing 0,64,72,128,192 before
moddir=$top/build/mod-$kver
names="--debug $moddir/dprof_sharing.ko --type dprof_sharing=dprof_sharing_obj"
# shellcheck disable=SC2086
"$view" advise $names "$out/before.dprof" dprof_sharing | tee "$out/advise.txt"
# shellcheck disable=SC2086
"$view" advise --json $names "$out/before.dprof" dprof_sharing >"$out/advise.json"

echo "== 2. the module built again from advise's proposal"
"$top/scripts/advise-to-c.py" "$out/advise.json" \
	"$top/selftests/modules/dprof_sharing.c" dprof_sharing_obj \
	>"$out/mod/dprof_sharing_layout.h"
cat "$out/mod/dprof_sharing_layout.h"
cp "$top/selftests/modules/dprof_sharing.c" "$out/mod/"
cat >"$out/mod/Kbuild" <<'KB'
obj-m := dprof_sharing_adv.o
dprof_sharing_adv-y := dprof_sharing.o
ccflags-y := -I$(src) -DDPROF_SHARING_LAYOUT='"dprof_sharing_layout.h"' \
	-DDPROF_SHARING_CACHE='"dprof_sharing_adv"'
KB
if ! make -C "$kdir" M="$out/mod" W=1 modules >"$out/mod/build.log" 2>&1 ||
	grep -q "warning:" "$out/mod/build.log"; then
	cat "$out/mod/build.log" >&2
	echo "FAIL: the module with advise's layout did not build warning-free" >&2
	exit 1
fi
cp "$out/mod/dprof_sharing_adv.ko" "$out/"
offsets=$(python3 - "$out/advise.json" "$fields" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
new = {u["member"]: u["new_offset"] for u in a["members"]}
print(",".join(str(o) for o in sorted(new[f] for f in sys.argv[2].split(","))))
PY
)
echo "the five fields at $offsets"

echo "== 3. the module with advise's layout: recording"
DPROF_ICOUNT=1 "$top/scripts/vm.sh" -k "$kernel" -s "$out" -t 900 \
	"$top/selftests/referee/guest-advise-loop.sh" record \
	/host/dprof_sharing_adv.ko dprof_sharing_adv "$offsets" after
names_after="--debug $out/dprof_sharing_adv.ko --type dprof_sharing_adv=dprof_sharing_obj"
# shellcheck disable=SC2086
"$view" advise $names_after "$out/after.dprof" dprof_sharing_adv |
	tee "$out/advise-after.txt"
# shellcheck disable=SC2086
"$view" advise --json $names_after "$out/after.dprof" dprof_sharing_adv \
	>"$out/advise-after.json"

echo "== 4. the guard: advise --against another build --check"
guard() {	# WANT_STATUS DEBUG CACHE RECORDING AGAINST
	local want=$1 debug=$2 cache=$3 rec=$4 against=$5 got=0
	"$view" advise --debug "$debug" --type "$cache=dprof_sharing_obj" \
		--against "$against" --check "$rec" "$cache" >"$out/guard.txt" || got=$?
	grep "^check:" "$out/guard.txt" || true
	[ "$got" -eq "$want" ] || {
		echo "FAIL: advise --against $(basename "$against") --check on $(basename "$rec"): exit $got, expected $want" >&2
		exit 1
	}
}
guard 0 "$moddir/dprof_sharing.ko" dprof_sharing "$out/before.dprof" \
	"$out/dprof_sharing_adv.ko"
echo "ok: the new build's layout passes against the first recording"
guard 1 "$out/dprof_sharing_adv.ko" dprof_sharing_adv "$out/after.dprof" \
	"$moddir/dprof_sharing.ko"
echo "ok: swapped, the old layout fails against the second recording (a regression caught)"
# shellcheck disable=SC2086
"$view" advise --json $names --layout "$out/advise.json" "$out/before.dprof" \
	dprof_sharing >"$out/advise-given.json"
python3 - "$out/advise.json" "$out/advise-given.json" <<'PY'
import json, sys
p, g = (json.load(open(f))["whatif"] for f in sys.argv[1:])
if p != g:
    sys.exit(f"FAIL: --layout with the proposal's JSON replays {g}, the proposal's what-if said {p}")
print("ok: --layout with the proposal's JSON replays what the proposal's what-if said")
PY

echo "== 5. both builds under the referee"
"$top/scripts/referee.sh" build
plugin=$("$top/scripts/referee.sh" plugin "$kver" "$out/referee.json")
DPROF_PLUGIN=$plugin "$top/scripts/vm.sh" -k "$kernel" -s "$out" -t 1200 \
	"$top/selftests/referee/guest-advise-loop.sh" referee \
	dprof_sharing /host/dprof_sharing_adv.ko
[ -s "$out/referee.json" ] || { echo "FAIL: the referee wrote no table" >&2; exit 1; }

echo "== the loop judged"
python3 "$top/scripts/advise-loop-judge.py" "$out"
