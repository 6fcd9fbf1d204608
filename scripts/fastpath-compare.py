#!/usr/bin/env python3
"""dprof's fast-path groups against a build's own __cacheline_group groups.

    fastpath-compare.py ADVISE_JSON LAYOUT_JSON

ADVISE_JSON: `dprof-view advise --json` by hot path (its "members", each
with its "group", e.g. tcp_sock_read_txrx, and its uses per path).
LAYOUT_JSON: `dprof-view layout --json` of the struct in the build that
has the groups (6.12's tcp_sock).  Only the struct's own (top-level)
groups are compared: a nested struct is one member to advise.

One line per member either puts on a fast path: dprof's group and its
uses, the build's group, and whether they agree (the same kind, read or
write, and the same paths), differ, or only one side has it.  Then the
counts.  Group names are compared by their suffix after the struct's
name (read_tx, write_txrx...); "rxtx" reads as "txrx".
"""
import json
import re
import sys


def suffix(group, struct):
    if not group:
        return None
    s = group[len(struct) + 1:] if group.startswith(struct + "_") else group
    return s.replace("rxtx", "txrx")


def build_groups(layout):
    """Top-level member -> the top-level group whose bytes hold it."""
    begins, ends = {}, {}
    for f in layout["fields"]:
        name = f["field"]
        if "." in name:
            continue
        m = re.match(r"__cacheline_group_(begin|end)__(.*)", name)
        if m:
            (begins if m.group(1) == "begin" else ends)[m.group(2)] = f["offset"]
    member_of = {}
    for f in layout["fields"]:
        top = re.split(r"[.\[]", f["field"])[0]
        if top.startswith("__cacheline_group_") or not f["size"]:
            continue
        for g, b in begins.items():
            if g in ends and b <= f["offset"] < ends[g]:
                member_of[top] = g
    return member_of


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    advise = json.load(open(sys.argv[1]))
    layout = json.load(open(sys.argv[2]))
    struct = re.sub(r"^struct ", "", layout["name"])
    theirs = build_groups(layout)
    ours, uses = {}, {}
    for m in advise["members"]:
        for name in [n.strip() for n in m["name"].split(",")]:
            if m["group"]:
                ours[name] = m["group"]
                uses[name] = " ".join(
                    "%s:%s/%d" % (p["path"], p["access"], p["samples"])
                    for p in m["paths"] if p["access"] != "-")
    counts = {}
    print("%-28s %-14s %-14s %-10s %s" % ("member", "dprof", "build", "verdict", "dprof's uses (path:use/samples)"))
    for name in sorted(set(ours) | set(theirs),
                       key=lambda n: (suffix(theirs.get(n), struct) or "~", n)):
        a, b = suffix(ours.get(name), struct), suffix(theirs.get(name), struct)
        verdict = ("same" if a == b else "dprof only" if not b else
                   "build only" if not a else "differ")
        counts[verdict] = counts.get(verdict, 0) + 1
        print("%-28s %-14s %-14s %-10s %s" % (name, a or "-", b or "-", verdict,
                                             uses.get(name, "")))
    print("\n" + ", ".join("%s %d" % (k, counts.get(k, 0))
                           for k in ("same", "differ", "dprof only", "build only")))

    # The 64-byte lines a member set spans in each layout: today (the
    # recorded build), dprof's proposal, and the build's.
    today, proposed = {}, {}
    for m in advise["members"]:
        for name in [n.strip() for n in m["name"].split(",")]:
            today[name] = (m["offset"], m["size"])
            proposed[name] = (m["new_offset"], m["size"])
    build = {}
    for f in layout["fields"]:
        top = re.split(r"[.\[]", f["field"])[0]
        if top.startswith("__cacheline_group_") or not f["size"]:
            continue
        lo, hi = build.get(top, (f["offset"], f["offset"] + f["size"]))
        build[top] = (min(lo, f["offset"]), max(hi, f["offset"] + f["size"]))
    build = {k: (lo, hi - lo) for k, (lo, hi) in build.items()}

    def lines(names, where):
        ls = set()
        for n in names:
            if n in where:
                off, size = where[n]
                ls.update(range(off // 64, (off + max(size, 1) - 1) // 64 + 1))
        return len(ls)

    print("\nlines the members span (64 bytes)   today  dprof  build")
    for what, names in (("dprof's fast path", set(ours)),
                        ("the build's groups", set(theirs))):
        print("%-34s %6d %6d %6d  (%d members; absent where a layout lacks one)" % (
            what, lines(names, today), lines(names, proposed),
            lines(names, build), len(names)))


if __name__ == "__main__":
    main()
