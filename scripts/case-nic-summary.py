#!/usr/bin/env python3
"""case-nic-summary.py: make case-nic's summary from build/case-nic/.

    python3 scripts/case-nic-summary.py build/case-nic

What the guest wrote (scripts/guest/case-nic-guest.sh) and the referee's
tables, as a few tables a person reads in a minute: the setup, the types
dprof ranks at target=all, the hand-off at the transmit completion before
and after XPS (dprof's count with its interval beside the NIC's own), the
CPU changes of the skbuff flow, the referee's misses per reply by type,
and replies per guest second under -icount.  A missing part is said in
one line and skipped.
"""
import json
import math
import os
import re
import statistics
import sys


def wilson(m, n, z=1.96):
    if n == 0:
        return 0.0, 0.0
    p = m / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def read(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


def replies(text):
    """Replies of a load: the sum of mc_udp's lines."""
    return sum(int(m.group(1)) for m in re.finditer(r"(\d+) replies, \d+ timeouts", text or ""))


def handoff(out, side):
    text = read(out, f"{side}-handoff")
    setup = read(out, f"{side}-setup.txt") or ""
    truth = re.search(r"the NIC: (\d+) (\d+) flows", setup)
    if not text:
        return f"{side:6s}  (no recording)"
    moved, n = map(int, text.split())
    lo, hi = wilson(moved, n)
    line = (f"{side:6s}  {moved:3d} of {n:3d} skbuffs ({100 * moved / max(n, 1):3.0f} %, "
            f"95 % {100 * lo:.0f}-{100 * hi:.0f} %)")
    if truth:
        line += f"   the NIC: {truth.group(1)} of {truth.group(2)} flows on another CPU's queue"
    return line


def bounce(out, side):
    """Table 6.1's bounce for skbuffs: slab alloc/free pairs on two CPUs."""
    text = read(out, f"{side}-objects.txt") or ""
    size = re.search(r"skbuff_head_cache \(object (\d+) B\)", text)
    m = re.search(r"freed on another CPU: (\d+) of (\d+) alloc/free pairs", text)
    if not m:
        return f"{side:6s}  (no objects view)"
    moved, n = int(m.group(1)), int(m.group(2))
    lo, hi = wilson(moved, n)
    return (f"{side:6s}  {moved} of {n} alloc/free pairs ({100 * moved / max(n, 1):.0f} %, "
            f"95 % {100 * lo:.0f}-{100 * hi:.0f} %), object {size.group(1) if size else '?'} B")


def lines_moved(out, side):
    """classify -L's rows: the sk_buff lines watched, how often they moved."""
    rows = []
    for line in (read(out, f"{side}-lines.txt") or "").splitlines():
        w = line.split()
        moved = [i for i, x in enumerate(w) if re.match(r"\d+/\d+$", x)]
        if w and w[0].isdigit() and re.match(r"\d+-\d+$", w[1]) and moved and moved[0] + 2 < len(w):
            i = moved[0]
            rows.append(f"line {w[0]} ({w[1]}): moved in {w[i]} lives (95 % {w[i + 1]}), {w[i + 2]}")
    return f"{side:6s}  " + ("; ".join(rows) if rows else "(no classify -L)")


def cpu_changes(out, side, top=4):
    text = read(out, f"{side}-flow.txt") or ""
    edges = []
    for line in text.splitlines():
        m = re.match(r"\s*\d+ => \d+\s+(\d+)\s+(.*)$", line)
        if m:
            edges.append((int(m.group(1)), m.group(2)))
    edges.sort(reverse=True)
    return [f"  {side:6s} {c:4d} histories  {e}" for c, e in edges[:top]] or [f"  {side:6s} no CPU change"]


def referee_table(out):
    rows = {}
    for side in ("before", "after"):
        text = read(out, f"referee-{side}.json")
        if not text:
            return ["the referee: not run (-R), or it wrote no table"]
        rep = json.loads(text)
        n = replies(read(out, f"load-{side}.txt"))
        # Slab types only: under the plugin the guest is slow and its
        # timer interrupts (the clock's variables) weigh on every reply.
        slab = {f["cache"] for f in rep.get("fields", []) if f.get("kind") == "slab"}
        per = {}
        for s in rep.get("sharing", []):
            if s["cache"] in slab:
                per[s["cache"]] = per.get(s["cache"], 0) + s["count"]
        rows[side] = (per, n)
    (b, nb), (a, na) = rows["before"], rows["after"]
    caches = sorted(set(b) | set(a), key=lambda c: -b.get(c, 0) / max(nb, 1))
    caches = ["skbuff_head_cache"] + [c for c in caches if c != "skbuff_head_cache"]
    lines = [f"sharing misses per reply in slab types (the referee; {nb} replies before, {na} after)",
             f"  {'type':26s} {'before':>8s} {'after':>8s}"]
    for c in caches[:8]:
        lines.append(f"  {c:26s} {b.get(c, 0) / max(nb, 1):8.2f} {a.get(c, 0) / max(na, 1):8.2f}")
    lines.append(f"  {'all slab types':26s} {sum(b.values()) / max(nb, 1):8.2f} {sum(a.values()) / max(na, 1):8.2f}")
    return lines


def rates(out):
    text = read(out, "rate.txt")
    if not text:
        return ["replies per guest second: not run"]
    by = {"off": [], "on": []}
    for m in re.finditer(r"round \d+ xps (off|on) (\d+)", text):
        by[m.group(1)].append(int(m.group(2)))
    if not by["off"] or not by["on"]:
        return ["replies per guest second: no rounds"]
    off, on = statistics.median(by["off"]), statistics.median(by["on"])
    return [f"replies per guest second under -icount ({len(by['off'])} rounds each, median, min-max)",
            f"  XPS off  {off:7.0f}  ({min(by['off'])}-{max(by['off'])})",
            f"  XPS on   {on:7.0f}  ({min(by['on'])}-{max(by['on'])})  {100 * (on - off) / off:+.1f} %"]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/case-nic"
    if not os.path.isdir(out):
        print(f"case-nic-summary.py: {out}: no such folder (run make case-nic)", file=sys.stderr)
        sys.exit(1)
    w = print
    w((read(out, "setup.txt") or "setup: not written\n").rstrip())
    w("")
    report = read(out, "all-report.txt")
    if report:
        w("target=all at its defaults, under -icount (dprof-view report, first rows):")
        for line in report.splitlines()[:16]:
            w("  " + line[:156])
        w("")
    for title, one_line in (
            ("skbuffs igb transmitted, freed on another CPU than their allocation's at the completion:", handoff),
            ("skbuffs freed on another CPU than their allocation's, every use (Table 6.1's bounce; clients' included):",
             bounce),
            ("sk_buff's lines that move (dprof-view classify -L, the lines of len, head and data):", lines_moved)):
        w(title)
        for side in ("before", "after"):
            w("  " + one_line(out, side))
        w("")
    w("skbuff flow: the CPU changes most histories took (dprof-view flow; virtio_net: the clients' NIC)")
    for side in ("before", "after"):
        for line in cpu_changes(out, side):
            w(line)
    w("")
    for line in referee_table(out):
        w(line)
    w("")
    for line in rates(out):
        w(line)


if __name__ == "__main__":
    main()
