#!/usr/bin/env python3
"""evaluation.py: Documentation/evaluation.rst from make check's logs.

make check (scripts/check.sh) keeps each step's output in
build/check-logs/step-N.log, with step-N.log.step holding the step's
name, verdict and seconds, and the commit and total seconds beside them.
This writes the page of current figures from those logs, so that the
figures in the docs are the last run's and cannot go stale by hand:

    python3 scripts/evaluation.py [build/check-logs] > Documentation/evaluation.rst

The page: every step with its verdict and time (and for the guest
selftests, how many passed and which were skipped, with the reason);
then the lines in which the judged steps state their figures (the
referee's verdicts on dprof, the real applications' costs and checks),
as they printed them.  A log that is missing or unreadable is an error.
"""
import os
import re
import sys

# Steps whose figure lines the page keeps, by a word of their name.
JUDGED = ("referee", "Debian guest", "advise", "production host", "-icount")
# The lines that state a figure or a verdict in those steps' logs.
FIGURE = re.compile(
    r"^(# )?(ok|FAIL): |^(# )?types: .*Spearman|^(# )?sampler=operand: judged|"
    r"^(# )?operand sampler:|^(# )?false sharing removed|^(# )?working sets:|"
    r"^(# )?top type:|^(# )?referee: \d+ accesses|^(# )?the loop:|"
    r"^(# )?(sets|requests)[ _].*per (guest )?second|overhead|"
    r"^(# )?[a-z_]+: \d+(\.\d+)?% ")
TAP = re.compile(r"^(not )?ok \d+ (\S+)( # (SKIP )?(.*))?$")


def fail(msg):
    print(f"evaluation.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_steps(logs):
    steps = []
    n = 1
    while os.path.exists(os.path.join(logs, f"step-{n}.log.step")):
        base = os.path.join(logs, f"step-{n}.log")
        with open(base + ".step") as f:
            meta = f.read().split("\n")
        if len(meta) < 3 or not meta[2].isdigit():
            fail(f"{base}.step: not a step's name, verdict and seconds")
        with open(base, errors="replace") as f:
            text = f.read().split("\n")
        steps.append({"name": meta[0], "verdict": meta[1],
                      "secs": int(meta[2]), "lines": text})
        n += 1
    if not steps:
        fail(f"{logs}: no step logs (run make check first)")
    return steps


def tap_summary(lines):
    passed, skipped, failed = 0, [], []
    for line in lines:
        m = TAP.match(line)
        if not m:
            continue
        if m.group(1):
            failed.append(m.group(2))
        elif m.group(4):
            skipped.append(f"{m.group(2)} ({m.group(5)[:100]})")
        else:
            passed += 1
    if not passed and not skipped and not failed:
        return None
    text = f"{passed} passed"
    if failed:
        text += f", failed: {', '.join(failed)}"
    if skipped:
        text += f", {len(skipped)} skipped"
    return text, skipped


def read_one(logs, name):
    try:
        with open(os.path.join(logs, name)) as f:
            return f.read().strip()
    except OSError:
        return "?"


def main():
    logs = sys.argv[1] if len(sys.argv) > 1 else "build/check-logs"
    steps = read_steps(logs)
    commit, secs = read_one(logs, "commit"), read_one(logs, "seconds")
    out = []
    w = out.append
    w("Evaluation")
    w("==========")
    w("")
    w(f"The figures of the last ``make check`` on record: commit {commit}, {secs} s.")
    w("Made by ``scripts/evaluation.py`` from that run's logs (``build/check-logs``);")
    w("not edited by hand.  What each check asserts is in its script's header.")
    w("")
    w("Steps")
    w("-----")
    w("")
    w(".. list-table::")
    w("   :header-rows: 1")
    w("")
    w("   * - step")
    w("     - verdict")
    w("     - seconds")
    w("     - guest tests")
    notes = []
    for s in steps:
        tap = tap_summary(s["lines"])
        w(f"   * - {s['name']}")
        w(f"     - {s['verdict']}")
        w(f"     - {s['secs']}")
        w(f"     - {tap[0] if tap else '-'}")
        if tap and tap[1]:
            notes.append((s["name"], tap[1]))
    w("")
    if notes:
        w("Skipped, with the reason each gave:")
        w("")
        for name, skipped in notes:
            for sk in skipped:
                w(f"- {name}: {sk}")
        w("")
    w("Figures of the judged steps")
    w("---------------------------")
    for s in steps:
        if not any(k in s["name"] for k in JUDGED):
            continue
        figures = [l.rstrip() for l in s["lines"] if FIGURE.search(l)]
        if not figures:
            continue
        w("")
        w(s["name"])
        w("~" * len(s["name"]))
        w("")
        w("::")
        w("")
        for l in figures[:60]:
            w("  " + (l[2:] if l.startswith("# ") else l)[:200])
        if len(figures) > 60:
            w(f"  ... and {len(figures) - 60} more lines in the step's log")
    print("\n".join(out))


if __name__ == "__main__":
    main()
