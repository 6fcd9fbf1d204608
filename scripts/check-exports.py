#!/usr/bin/env python3
"""Checks of dprof-view export's files that need no dprof code to read them.

  check-exports.py pprof-totals PLAN TOP_SAMPLES TOP_MISSES TOP_LATENCY
      PLAN is the injection plan of selftests/test-exports.sh (COUNT OFFSET
      FUNCTION KIND LATENCY per line); TOP_* are `pprof -top` outputs for
      the three sample types.  The totals and each function's flat value
      must be the plan's.
  check-exports.py trace TRACE.json HISTORIES ITERS
      TRACE.json is export --perfetto of dprof_sharing's histories;
      HISTORIES the complete histories, one a line: the id and the offsets
      it watched (comma-separated).  The trace must follow the Trace Event
      Format's rules (slices nest on a track, every flow has both ends
      inside slices) and, for every complete history, dprof_sharing's
      source: allocated on CPU 0, freed on CPU 1, per CPU and watched
      offset the accesses of its table (modules/dprof_sharing.c).
  check-exports.py heatmap HEATMAP.svg
      HEATMAP.svg is profile --svg of the same recording, fields named from
      dprof_sharing.ko's DWARF.  Its boxes must cover the 320-byte object
      once, and carry the labels dprof_sharing's source implies: offset 0
      (both CPUs write it) true sharing, 64 and 72 (one CPU writes each,
      in one cache line) false sharing, 128 (written once) neither; each
      of the four has samples.
Exit 0 when all hold; 1 with one line per failure.
"""
import json
import re
import sys

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def pprof_total(top):
    """'Total samples = 44000cycles' -> 44000 from pprof -top."""
    m = re.search(r"Total samples = ([0-9.]+)", top)
    return float(m.group(1)) if m else None


def pprof_flat(top):
    """{function: flat} from pprof -top's rows."""
    rows = {}
    for line in top.splitlines():
        f = line.split()
        if len(f) == 6 and f[1].endswith("%") and f[4].endswith("%"):
            rows[f[5]] = float(re.match(r"[0-9.]+", f[0]).group(0))
    return rows


def pprof_totals(plan, tops):
    want = {"samples": {}, "misses": {}, "latency": {}}
    for line in open(plan):
        count, _off, fn, kind, lat = line.split()
        n = int(count)
        missed = "+miss" in kind
        for t, v in (("samples", n), ("misses", n if missed else 0),
                     ("latency", n * int(lat) if missed else 0)):
            want[t][fn] = want[t].get(fn, 0) + v
    for t, path in zip(("samples", "misses", "latency"), tops):
        top = open(path).read()
        total = sum(want[t].values())
        check(pprof_total(top) == total,
              f"pprof -sample_index={t}: total {pprof_total(top)}, the plan {total}")
        flat = pprof_flat(top)
        for fn, v in want[t].items():
            if v:
                check(flat.get(fn) == v,
                      f"pprof -sample_index={t}: {fn} {flat.get(fn)}, the plan {v}")
        print(f"pprof {t}: the plan: total {total:g}, by function {want[t]}")


# dprof_sharing's table, per offset: (CPU 0 accesses, CPU 1 accesses) of
# one object in a run of ITERS iterations (reads + writes).
def sharing_table(iters):
    return {0: (2 * iters, 2 * iters), 64: (iters, 0), 72: (0, iters),
            128: (iters + 1, iters)}


def trace_rules(events):
    """Slices nest per track; flows start and end inside slices."""
    slices = {}
    for e in events:
        if e["ph"] == "X":
            slices.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for tid, s in slices.items():
        s.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for a, b in s:
            while stack and stack[-1] <= a:
                stack.pop()
            check(not stack or b <= stack[-1],
                  f"track {tid}: slice [{a}, {b}) overlaps its neighbour without nesting")
            stack.append(b)

    def inside(tid, ts):
        return any(a <= ts <= b for a, b in slices.get(tid, []))

    ends = {}
    for e in events:
        if e["ph"] in "sf":
            ends.setdefault(e["id"], {})[e["ph"]] = e
            check(inside(e["tid"], e["ts"]),
                  f"flow {e['id']} ({e['ph']}) at {e['ts']} is in no slice of track {e['tid']}")
    for i, pair in ends.items():
        check(set(pair) == {"s", "f"}, f"flow {i} lacks an end: {sorted(pair)}")
    return sum(len(s) for s in slices.values())


def trace(path, hist_path, iters):
    doc = json.load(open(path))
    events = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    cpu_of = {tid: int(n.split()[1]) for tid, n in names.items()}
    nslices = trace_rules(events)
    # "ID OFFSETS": each complete history and the offsets it watched
    watched = {}
    for line in open(hist_path):
        hid, offs = line.split()
        watched[int(hid)] = {int(o) for o in offs.split(",")}
    complete = sorted(watched)
    check(complete, "no complete history to check")
    table = sharing_table(iters)
    for h in complete:
        pieces = sorted((e for e in events
                         if e["ph"] == "X" and e["args"]["history"] == h),
                        key=lambda e: e["ts"])
        check(pieces, f"history {h}: not in the trace")
        if not pieces:
            continue
        first, last = pieces[0], pieces[-1]
        check(cpu_of[first["tid"]] == 0 and "allocated_by" in first["args"],
              f"history {h}: first slice on CPU {cpu_of[first['tid']]}, not 0")
        check(cpu_of[last["tid"]] == 1 and "freed_by" in last["args"],
              f"history {h}: last slice on CPU {cpu_of[last['tid']]}, not 1")
        for a, b in zip(pieces, pieces[1:]):
            check(cpu_of[a["tid"]] != cpu_of[b["tid"]],
                  f"history {h}: two pieces in a row on CPU {cpu_of[a['tid']]}")
        got = {}
        for e in events:
            if e["ph"] == "i" and e["args"]["history"] == h:
                k = (e["args"]["offset"], cpu_of[e["tid"]])
                got[k] = got.get(k, 0) + 1
        for off, (c0, c1) in table.items():
            if off not in watched[h]:
                continue
            have = (got.get((off, 0), 0), got.get((off, 1), 0))
            check(have == (c0, c1),
                  f"history {h} offset {off}: accesses on CPU 0, 1 = {have}, the table {(c0, c1)}")
    flows = sum(1 for e in events if e["ph"] == "s")
    print(f"trace: {len(names)} tracks, {nslices} slices, {flows} CPU changes; "
          f"{len(complete)} complete histories checked against dprof_sharing's table")


def heatmap(path):
    import xml.etree.ElementTree as ET
    svg = "{http://www.w3.org/2000/svg}"
    boxes = {}
    for g in ET.parse(path).getroot().iter(svg + "g"):
        if g.get("class") == "field":
            off, size = int(g.get("data-offset")), int(g.get("data-size"))
            boxes[off] = (size, g.get("data-label"), float(g.get("data-share")))
    covered = []
    for off, (size, _l, _s) in sorted(boxes.items()):
        covered.extend(range(off, off + size))
    check(covered == list(range(320)),
          f"the boxes cover {len(covered)} bytes, not 0..319 once")
    want = {0: "true-sharing", 64: "false-sharing", 72: "false-sharing",
            128: "neither"}
    for off, label in want.items():
        got = boxes.get(off)
        check(got is not None and got[1] == label,
              f"heat map box at {off}: {got and got[1]}, the source says {label}")
        check(got is not None and got[2] > 0, f"heat map box at {off}: no samples")
    # A line's own label (classify -L), from the source: line 0 shared,
    # line 1 falsely shared, line 2 written by A once and read by B in
    # every life (it moves: a hand-off), line 3 never leaves A (no label
    # may say it moves), line 4 moves once per life through two accesses
    # (handoff, or undecided with so few).
    lines = {int(g.get("data-line")): g.get("data-label")
             for g in ET.parse(path).getroot().iter(svg + "g")
             if g.get("class") == "line"}
    want_line = {0: {"true-sharing"}, 1: {"false-sharing"}, 2: {"handoff"},
                 3: {""}, 4: {"handoff", ""}}
    for line, labels in want_line.items():
        check(lines.get(line) in labels,
              f"heat map line {line}: {lines.get(line)!r}, the source says one of {sorted(labels)}")
    print(f"heat map: {len(boxes)} boxes over 320 bytes; labels " +
          ", ".join(f"{o} {boxes[o][1]} ({boxes[o][2]:.1f}%)" for o in want if o in boxes) +
          "; lines " + ", ".join(f"{k} {v or '-'}" for k, v in sorted(lines.items())))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "pprof-totals":
        pprof_totals(sys.argv[2], sys.argv[3:6])
    elif len(sys.argv) == 3 and sys.argv[1] == "heatmap":
        heatmap(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "trace":
        trace(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.stderr.write(__doc__)
        return 2
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
