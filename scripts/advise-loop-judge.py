#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""advise-loop-judge.py OUT: the verdict of scripts/check-advise-loop.sh.

Reads, in OUT: advise.json (advise on the build as written: the proposal
and its what-if), advise-after.json (advise on the build with the
proposal: its "before" is dprof's measurement of that build, the
histories replayed at their own offsets), referee.json and
referee-stats-1, -2 (the referee's table of both builds' rounds and the
builds' field offsets).  Prints what it compares; exits 1 when a check
fails.

Rates are per access of the watched slots, with a Poisson 95 % interval
on the count (1.96 sqrt(n), and 3 for a count of 0, the rule of three);
two rates agree when their difference is within the two half-widths
added.  An interval counts only when narrower than half the change the
what-if predicts (issue "From diagnosis to fix", item 3): else the
comparison cannot decide and the check fails.
"""
import json
import math
import os
import sys

out = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    failures += not ok


def load(name):
    return json.load(open(os.path.join(out, name)))


def stats(name):
    offsets, rounds, iters = {}, 0, 0
    for line in open(os.path.join(out, name)):
        w = line.split()
        if w and w[0] == "sharing_offset":
            offsets[w[1]] = int(w[2])
        elif w and w[0] == "rounds" and len(w) == 4:
            rounds, iters = int(w[1]), int(w[3])
    return offsets, rounds, iters


def rate(count, accesses):
    """count / accesses and its 95 % half-width."""
    half = (1.96 * math.sqrt(count) if count else 3.0) / accesses
    return count / accesses, half


advice = load("advise.json")
after = load("advise-after.json")
members = {u["member"]: u for u in advice["members"]}
line = advice["line"]

# The proposal itself.
a, b = members["written_by_a"]["new_offset"], members["written_by_b"]["new_offset"]
check(not advice["same_order"], "advise proposes another order than today's")
check(a // line != b // line,
      f"written_by_a ({a}) and written_by_b ({b}) on different {line}-byte lines")
check(advice["mixed_write_lines_before"] >= 1 and advice["mixed_write_lines_after"] == 0,
      f"lines holding two CPUs' writes: {advice['mixed_write_lines_before']} today, "
      f"{advice['mixed_write_lines_after']} proposed")

# The what-if against dprof's measurement of the new build.
pred_before = advice["whatif"]["before"]
pred = advice["whatif"]["after"]
meas = after["whatif"]["before"]
print(f"what-if (the first build's {advice['histories']} histories, {pred['accesses']} accesses, "
      f"replayed at the proposed offsets) against dprof on the new build "
      f"({after['histories']} histories, {meas['accesses']} accesses), per 1,000 accesses:")
print(f"  {'':16} {'today':>10} {'predicted':>16} {'measured':>16}  agree")
for cls in ("false_sharing", "true_sharing", "transfers"):
    t, _ = rate(pred_before[cls], pred_before["accesses"])
    p, ph = rate(pred[cls], pred["accesses"])
    m, mh = rate(meas[cls], meas["accesses"])
    agree = abs(p - m) <= ph + mh
    print(f"  {cls:16} {1000 * t:10.2f} {1000 * p:9.2f} +-{1000 * ph:5.2f} "
          f"{1000 * m:9.2f} +-{1000 * mh:5.2f}  {'yes' if agree else 'no'}")
    if cls == "false_sharing":
        change = t - p
        check(change > 0 and ph + mh < change / 2,
              f"false sharing: the predicted change ({1000 * change:.2f} per 1,000 accesses) "
              f"is more than twice the intervals ({1000 * (ph + mh):.2f})")
        check(meas[cls] == 0,
              f"dprof sees no false sharing on the new build ({meas[cls]} misses)")
    check(agree, f"{cls.replace('_', ' ')}: the what-if's prediction holds "
          f"(predicted {1000 * p:.2f}, measured {1000 * m:.2f} per 1,000 accesses)")
print(f"  lines a life touches: today {pred_before['lines_per_life']:.2f}, "
      f"predicted {pred['lines_per_life']:.2f}, measured {meas['lines_per_life']:.2f}")
check(after["same_order"] or after["mixed_write_lines_before"] == 0,
      "advise on the new build finds no line with two CPUs' writes left")

# The referee, both builds.
ref = load("referee.json")
off1, rounds1, iters1 = stats("referee-stats-1")
off2, rounds2, iters2 = stats("referee-stats-2")
fields = {}
for f in ref["fields"]:
    fields.setdefault(f["cache"], {})[f["offset"]] = f


def ref_row(cache, off):
    return fields.get(cache, {}).get(off, {})


def ref_total(cache, key):
    return sum(f.get(key, 0) for f in fields.get(cache, {}).values())


n1, n2 = rounds1 * iters1, rounds2 * iters2
print(f"referee: {ref['measured']['accesses']} accesses in {len(ref.get('windows', []))} windows; "
      f"{rounds1} rounds of {iters1} iterations on each build")
print(f"  {'field':14} {'offset':>6} {'false':>7} {'true':>7}   {'offset':>6} {'false':>7} {'true':>7}")
for name in ("shared_count", "written_by_a", "written_by_b", "read_mostly",
             "private_count", "handoff_seq"):
    r1, r2 = ref_row("dprof_sharing", off1[name]), ref_row("dprof_sharing_adv", off2[name])
    print(f"  {name:14} {off1[name]:6} {r1.get('false_sharing', 0):7} {r1.get('true_sharing', 0):7}"
          f"   {off2[name]:6} {r2.get('false_sharing', 0):7} {r2.get('true_sharing', 0):7}")
for name in ("written_by_a", "written_by_b"):
    got = ref_row("dprof_sharing", off1[name]).get("false_sharing", 0)
    check(got >= 0.9 * n1, f"referee, as written: {name} false sharing {got} of {n1} expected")
f2 = ref_total("dprof_sharing_adv", "false_sharing")
check(f2 <= 2 * rounds2,
      f"referee, advise's layout: false sharing over the whole struct {f2} "
      f"(at most {2 * rounds2}, the memory's reuse)")
for cache, off, n in (("dprof_sharing", off1, n1), ("dprof_sharing_adv", off2, n2)):
    got = ref_row(cache, off["shared_count"]).get("true_sharing", 0)
    check(got >= 0.9 * 2 * n,
          f"referee, {cache}: shared_count true sharing {got} of {2 * n} (no layout removes it)")
f1 = ref_total("dprof_sharing", "false_sharing")
t1, t2 = ref_total("dprof_sharing", "true_sharing"), ref_total("dprof_sharing_adv", "true_sharing")
pf = 1 - pred["false_sharing"] / pred_before["false_sharing"] if pred_before["false_sharing"] else float("nan")
print(f"false sharing removed: predicted {100 * pf:.0f} %, referee {100 * (1 - f2 / f1) if f1 else float('nan'):.0f} % "
      f"({f1} -> {f2}); true sharing by the referee {t1} -> {t2}")
print("the loop: " + ("closed" if not failures else f"{failures} checks failed"))
sys.exit(1 if failures else 0)
