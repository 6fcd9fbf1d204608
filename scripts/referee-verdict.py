#!/usr/bin/env python3
"""case-referee.sh's verdict on dprof-view referee --json's judgment.

    referee-verdict.py JUDGED.json OPERAND

OPERAND is 1 for -o (target=all at its defaults: the operand sampler,
one vCPU, -icount).  Checks, with the issues' thresholds:
  - at least 4 of dprof's top 5 types in the referee's top 5;
  - -o: the top type the same, or tied (the two intervals overlap);
  - -o: dprof's 95 % intervals hold the referee's share for 85 % of the
    types above 1 % of the referee's slab accesses, and for 85 % of the
    fields the referee's share puts at the minimum samples or more (the
    interval gates; chosen by the truth, not by dprof's noisy count);
  - otherwise: the fields' gate alone, the type gate reported;
  - no decided sharing label contradicting the referee.
Exit 0 when all hold, 1 when one fails, 3 when only the -o interval
gates fail: with 95 % intervals that hold as often as they say, a run
misses 85 % by chance now and then (the chance at this run's counts is
printed), so case-referee.sh lets a second, independent run decide.
"""
import json
import math
import sys


def chance_below(n, need, cover=0.95):
    """P(fewer than @need of @n intervals hold), each holding with @cover."""
    return sum(math.comb(n, k) * cover ** k * (1 - cover) ** (n - k)
               for k in range(0, min(need, n + 1)))


def main():
    if len(sys.argv) != 3:
        print("usage: " + __doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    j = json.load(open(sys.argv[1]))
    operand = sys.argv[2] == "1"
    top = ("the same" if j["top1_same"] else
           "tied (intervals overlap)" if j.get("top1_tied") else "differs")
    nf, hf = j["fields_calibrated"], j["fields_held"]
    nt, ht = j["types_over_1pct"], j["types_over_1pct_held"]
    need_f, need_t = math.ceil(0.85 * nf), math.ceil(0.85 * nt)
    chosen = ("the referee's share puts at" if j.get("fields_by_referee")
              else "with")
    fields = (f"dprof's intervals hold the referee's share for {hf} of {nf} fields "
              f"{chosen} {j['min_samples']} samples or more ({need_f} needed)")
    types = (f"type intervals hold {ht} of {nt} types over 1 % of the referee's "
             f"slab accesses ({need_t} needed)")
    checks = [
        (j["top5_in_referee_top5"] >= 4,
         f"{j['top5_in_referee_top5']} of dprof's top {j['top5']} types in the referee's top 5 (4 needed)"),
    ]
    gates = []
    if operand:
        checks.append((j["top1_same"] or j.get("top1_tied", False), f"top type: {top}"))
        gates = [(nt > 0 and ht >= need_t, types), (nf > 0 and hf >= need_f, fields)]
    else:
        checks.append((nf > 0 and hf >= need_f, fields))
    checks.append((j["labels_contradicted"] == 0,
                   f"{j['labels_contradicted']} of {j['labels']} decided sharing labels contradict the referee"))
    for ok, what in checks + gates:
        print(("ok: " if ok else "FAIL: ") + what)
    print(f"working sets: dprof's interval holds the referee's bytes for "
          f"{j['workingsets_held']} of {j['workingsets']} types (reported, not judged)")
    if operand:
        p_types, p_fields = chance_below(nt, need_t), chance_below(nf, need_f)
        chance = 1 - (1 - p_types) * (1 - p_fields)
        print(f"interval gates: a run with calibrated 95 % intervals fails them by chance "
              f"{100 * chance:.1f} % of the time at these counts (types {100 * p_types:.1f} %, "
              f"fields {100 * p_fields:.1f} %)")
    else:
        print(f"top type: {top}; {types} (reported, not judged)")
    if not all(ok for ok, _ in checks):
        sys.exit(1)
    sys.exit(0 if all(ok for ok, _ in gates) else 3)


if __name__ == "__main__":
    main()
