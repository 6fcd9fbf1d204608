#!/bin/sh
# The referee proven first (issue "A referee on real workloads", item 4):
# its classes on dprof_sharing's workloads, whose every access is known
# in advance, must be those the workloads' code makes certain.
#
#   [COST=1] scripts/check-referee.sh [-k KERNEL]
#
# Per object and lockstep iteration (A's then B's; the table in
# selftests/modules/dprof_sharing.c), from MESI with one total order:
#  shared_count (0): each CPU reads then writes it; the read finds the
#     line modified by the other CPU's write -> one true-sharing miss per
#     CPU and iteration (2 x ITERS x ROUNDS), the write an upgrade.
#  written_by_a (64) / written_by_b (72): one line, each CPU writes only
#     its own 8 bytes -> each write misses on the line the other took,
#     on bytes the other did not write: false sharing, ITERS x ROUNDS
#     each.
#  read_mostly (128): written once by A, then only read: B's first read
#     is the round's one true-sharing miss; the rest hit.
#  private_count (192): only A: no sharing miss beyond the memory's reuse
#     (an object freed by B and allocated again by A, at most once a
#     round).
#  dprof_atomics: refs, cas_word, xchg_word, lock, bits are written by
#     both CPUs (lock xadd, lock cmpxchg, xchg, lock bts/and): each CPU's
#     first access in its iteration is a true-sharing miss (2 x ITERS x
#     ROUNDS); plain_by_a and hammered_by_b share a line, each written by
#     one CPU: false sharing; private_by_a (atomic64_inc by A only): none.
# Thresholds: 90 % of the expected count where one is expected, and at
# most 2 per round (memory reuse) where none is.
#
# Then hand-offs in the kernel's own objects (issue "The same answer
# twice", item 6): UDP datagrams over loopback from CPU 0 to CPU 1, as
# make demo sends them (selftests/referee/guest-udp.sh).  From the
# source: the softirq on CPU 0 queues each skb (__udp_enqueue_schedule_skb
# writes next/prev); CPU 1 dequeues it (__skb_recv_udp writes next/prev
# again), copies from skb->data (udp_recvmsg) and frees it
# (__consume_stateless_skb: skb_release_data reads cloned, head, end; no
# head state is released there).  So per datagram CPU 1 takes, from CPU
# 0, the line of next/prev, the line of cloned and the line of data once
# each (90-110 % of the datagrams; a miss CPU 0's Modified copy served,
# the referee's transfers), and no other line of the sk_buff
# (at most 10 %): what dprof's classify reports as those lines moving in
# every life (test-histories-skbuff.sh).
#
# Last, dprof judged by the referee in one run (item 5): the same UDP
# traffic with dprof.ko loaded (target=skbuff, its defaults) and
# recording, the referee leaving module text out; dprof-view referee
# compares the two.  It fails unless dprof's 95 % intervals hold the
# referee's share for at least 85 % of the fields with 100 samples or
# more (the issue's mark), or when a decided sharing label contradicts
# the referee.  Also prints the
# referee's cost: the plugin's host time per access while measuring, and
# with COST=1 the same guest run without and with the plugin.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
while getopts "k:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	*) sed -n '2,6p' "$0" >&2; exit 2 ;;
	esac
done
kver=$("$top/scripts/kernel.sh" "$kernel")
share=$(mktemp -d)
udp=$(mktemp -d)
judged=$(mktemp -d)
# KEEP=DIR keeps the tables and recordings, each under its run's name.
keep() {
	[ -n "${KEEP:-}" ] || return 0
	cp "$share/referee.json" "$KEEP/sharing-referee.json"
	cp "$udp/referee.json" "$KEEP/udp-referee.json"
	cp "$judged/referee.json" "$KEEP/judged-referee.json"
	cp "$judged/udp.dprof" "$KEEP/judged-udp.dprof"
}
trap 'keep 2>/dev/null; rm -rf "$share" "$udp" "$judged"' EXIT
# Each part's host seconds, printed at the end (make check's budget).
parts=
part() { parts="$parts$1 $(($(date +%s) - part_start)) s; "; part_start=$(date +%s); }
part_start=$(date +%s)
"$top/scripts/referee.sh" build
plugin=$("$top/scripts/referee.sh" plugin "$kver" "$share/referee.json")
part "plugin build:"
# The same run without the plugin, for its cost: COST=1 (make check
# leaves it out, some 20-30 s of its 40-minute budget; README has the
# last figures: 18 s without, 66 s with the plugin, in a clean-clone CI).
plain=-
if [ -n "${COST:-}" ]; then
	start=$(date +%s)
	"$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 900 \
		"$top/selftests/referee/guest-sharing.sh" >/dev/null
	plain=$(($(date +%s) - start))
fi
start=$(date +%s)
DPROF_PLUGIN=$plugin "$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 900 \
	"$top/selftests/referee/guest-sharing.sh"
secs=$(($(date +%s) - start))
part "proof on dprof_sharing (with the plugin${COST:+; and without}):"
[ -s "$share/referee.json" ] || { echo "FAIL: the referee wrote no JSON" >&2; exit 1; }
python3 - "$share/referee.json" "$share/sharing-stats" "$secs" "$plain" <<'PY'
import json, sys

rep = json.load(open(sys.argv[1]))
stats = {}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] in ("atomics_offset",):
        stats[w[1]] = int(w[2])
    elif w[0] == "rounds" and len(w) == 4:
        rounds, iters = int(w[1]), int(w[3])
fields = {}
for f in rep["fields"]:
    fields.setdefault(f["cache"], {})[f["offset"]] = f
failures = 0

def row(cache, off):
    return fields.get(cache, {}).get(off, {})

def check(what, ok, detail):
    global failures
    print(("ok: " if ok else "FAIL: ") + what + ": " + detail)
    failures += not ok

def expect(cache, name, off, cls, want):
    r = row(cache, off)
    t, f = r.get("true_sharing", 0), r.get("false_sharing", 0)
    other = f if cls == "true_sharing" else t
    got = t if cls == "true_sharing" else f
    if cls is None:
        check(f"{cache} {name} (+{off}) shares nothing", t + f <= 2 * rounds,
              f"true {t}, false {f}, at most {2 * rounds}")
        return
    check(f"{cache} {name} (+{off}) {cls.replace('_', ' ')}",
          got >= 0.9 * want and other <= 2 * rounds,
          f"{got} of {want} expected, the other class {other} (at most {2 * rounds})")

print(f"referee: {rep['measured']['accesses']} accesses measured in {rep['measured']['seconds']:.1f} s "
      f"({1e9 * rep['measured']['seconds'] / max(rep['measured']['accesses'], 1):.0f} ns each), "
      f"guest run {sys.argv[3]} s with the plugin, "
      + (f"{sys.argv[4]} s without" if sys.argv[4] != "-" else "without it not run (COST=1 runs it)")
      + f"; objects: {rep['objects']}")
I = iters * rounds
expect("dprof_sharing", "shared_count", 0, "true_sharing", 2 * I)
expect("dprof_sharing", "written_by_a", 64, "false_sharing", I)
expect("dprof_sharing", "written_by_b", 72, "false_sharing", I)
r = row("dprof_sharing", 128)
m = sum(r.get(k, 0) for k in ("compulsory", "true_sharing", "false_sharing", "conflict", "capacity"))
check("dprof_sharing read_mostly (+128) misses once a round", m <= 3 * rounds and
      r.get("loads", 0) >= 2 * I, f"{m} misses in {r.get('loads', 0)} loads")
expect("dprof_sharing", "private_count", 192, None, 0)
# Each CPU's first access to the field in its iteration finds the line
# taken by the other's write: 2 per iteration (the lock's unlock, bts's
# and, the second xadd hit the line the first took).
for name in ("refs", "cas_word", "xchg_word", "lock", "bits"):
    expect("dprof_atomics", name, stats[name], "true_sharing", 2 * I)
for name in ("plain_by_a", "hammered_by_b"):
    expect("dprof_atomics", name, stats[name], "false_sharing", I)
expect("dprof_atomics", "private_by_a", stats["private_by_a"], None, 0)
sys.exit(1 if failures else 0)
PY

# Hand-offs of sk_buffs (see the top).
plugin=$("$top/scripts/referee.sh" plugin "$kver" "$udp/referee.json")
DPROF_PLUGIN=$plugin "$top/scripts/vm.sh" -k "$kernel" -s "$udp" -t 900 \
	"$top/selftests/referee/guest-udp.sh"
part "sk_buff hand-offs:"
[ -s "$udp/referee.json" ] || { echo "FAIL: the referee wrote no JSON for UDP" >&2; exit 1; }
btf=$top/build/btf-$kver
off() {
	"$top/build/dprof-view" layout --btf "$btf" sk_buff |
		awk -v f="$1" '$3 == f || $3 == f ":1" { print $1; exit }'
}
python3 - "$udp/referee.json" "$udp/udp.log" "$(off next)" "$(off cloned)" \
	"$(off data)" <<'PY'
import json, sys

rep = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read().splitlines()
# Datagrams received: one the socket's full queue dropped is freed on
# CPU 0, never taken by CPU 1 (CI on a slow host: 1,792 moves for 2,000
# sent).  udp_flood prints "udp_flood: sent N received M in ...".
got = [int(l.split()[4]) for l in log if l.startswith("udp_flood: sent ")]
packets = got[0] if got else [int(l.split()[1]) for l in log if l.startswith("packets ")][0]
print(f"datagrams received: {packets} of {[l.split()[1] for l in log if l.startswith('packets ')][0]} sent")
want = {int(sys.argv[3]) // 64: "next/prev", int(sys.argv[4]) // 64: "cloned",
        int(sys.argv[5]) // 64: "data"}
# A line taken is a miss of CPU 1 that CPU 0's Modified copy served (the
# referee's transfers), whatever its class: a line CPU 1 lost to capacity
# before CPU 0 wrote it again misses by capacity, not sharing (one it
# never held, as compulsory), and how
# often that happens follows the host's scheduling of the two vCPUs (the
# sharing misses alone counted 1,783 to 1,984 for 2,000 in clean runs).
moved = {}
for s in rep["transfers"]:
    if s["cache"] == "skbuff_head_cache" and s["cpu"] == 1 and s["from"] == 0:
        moved[s["offset"] // 64] = moved.get(s["offset"] // 64, 0) + s["count"]
size = max(f["object_size"] for f in rep["fields"] if f["cache"] == "skbuff_head_cache")
failures = 0
for line in sorted(set(moved) | set(want) | set(range((size + 63) // 64))):
    n = moved.get(line, 0)
    if line in want:
        ok = 0.9 * packets <= n <= 1.1 * packets
        what = f"line {line} (holding {want[line]}) taken by CPU 1 from CPU 0 once per datagram received"
    else:
        ok = n <= 0.1 * packets
        what = f"line {line} not taken by CPU 1"
    print(("ok: " if ok else "FAIL: ") + f"sk_buff {what}: {n} times for {packets} datagrams")
    failures += not ok
sys.exit(1 if failures else 0)
PY

# dprof judged by the referee in the same run (see the top).  Module
# text: the modules area of x86-64 (nokaslr).  10,000 datagrams: the
# fields' units are the histories that watched a life to its end (about
# one per 45 datagrams); at 30,000 the rarest field with accesses (+72,
# one a life) had 658 samples in 659 lives, so a third still clears the
# 100 the calibration asks, and the run fits the issue's 4 minutes (at
# 30,000 it took 331 s in CI).  When the windows were the units, 10,000
# gave only 10 to 13 fields with 100 samples or more.
judged_packets=10000
plugin=$("$top/scripts/referee.sh" plugin "$kver" "$judged/referee.json")
DPROF_PLUGIN="$plugin,exclude=ffffffffc0000000-ffffffffff000000" \
	"$top/scripts/vm.sh" -k "$kernel" -s "$judged" -t 900 \
	"$top/selftests/referee/guest-udp-dprof.sh" "$judged_packets"
[ -s "$judged/referee.json" ] && [ -s "$judged/udp.dprof" ] ||
	{ echo "FAIL: the judged run left no recording or no referee table" >&2; exit 1; }
part "judged run:"
"$top/build/dprof-view" referee -t skbuff_head_cache "$judged/udp.dprof" "$judged/referee.json"
"$top/build/dprof-view" referee --json "$judged/udp.dprof" "$judged/referee.json" \
	>"$judged/judged.json"
python3 - "$judged/judged.json" <<'PY'
import json, sys

j = json.load(open(sys.argv[1]))
bad = 0
cal, held, n = j["fields_calibrated"], j["fields_held"], j["min_samples"]
# The issue's mark: the intervals hold the referee's share for 85 % of
# the fields with 100 samples or more, at least 10 of them.  Until
# 2026-11-28 they held about 84 % and this check was a binomial test
# against 85 %; the misses were measurement errors, not statistics (a
# rep string instruction's watched offsets after the first, a plain
# read-modify-write counted twice by the referee, young windows cut
# before the skbuff's free: design.rst, "Field shares by kind of
# window").  Fixed, two judged recordings held 28 of 28.
met = cal >= 10 and held >= 0.85 * cal
print(("ok: " if met else "FAIL: ") +
      f"calibration: dprof's intervals hold the referee's share for {held} of {cal} fields with {n} samples or more (85 % and at least 10 fields needed)")
bad += not met
ok = j["labels_contradicted"] == 0
print(("ok: " if ok else "FAIL: ") +
      f"{j['labels_contradicted']} of {j['labels']} decided sharing labels contradict the referee")
bad += not ok
sys.exit(1 if bad else 0)
PY
echo "check-referee: $parts"
