#!/usr/bin/env python3
"""The module's file graphs and their cycles (issue "Review", structure).

Two graphs over module/*.c:
  includes: a.c -> b when a.c (or a header it includes, transitively)
            includes module/b.h, b.h being the header of b.c;
  uses:     a.c -> b.c when a.o has an undefined symbol (nm "U") that
            b.o defines: a function or data a.c takes from b.c.
A cycle in either means the files cannot be drawn as layers whose calls
go down only.  Prints both graphs' cycles (strongly connected components
of more than one file) with the edges inside them, or, without a cycle,
the layers (each file on the level above everything it uses); exits 1
when there is a cycle or a file over --max-lines, 0 otherwise.

  scripts/check-layers.py [--objs DIR] [--max-lines N]

--objs: where the module's .o files are (default: the 6.1 build,
build/mod-RELEASE/src/module, made by make module or make build-test).
"""
import argparse
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.path.join(TOP, "module")


def sccs(nodes, edges):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def include_graph(units):
    """a -> b when a.c reaches b.h through module-local #includes."""
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    direct = {}
    for name in os.listdir(MODULE):
        if name.endswith((".c", ".h")):
            with open(os.path.join(MODULE, name), encoding="utf-8") as f:
                direct[name] = set(os.path.basename(x) for x in
                                   inc_re.findall(f.read()))
    edges = {}
    for u in units:
        seen, todo = set(), list(direct.get(u + ".c", ()))
        while todo:
            h = todo.pop()
            if h in seen or h not in direct:
                continue
            seen.add(h)
            todo.extend(direct[h])
        for h in seen:
            b = h[:-2]
            if h.endswith(".h") and b in units and b != u:
                edges.setdefault(u, set()).add(b)
    return edges


def use_graph(units, objs):
    defined, undefined = {}, {}
    for u in units:
        out = subprocess.run(["nm", os.path.join(objs, u + ".o")],
                             check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.setdefault(u, set()).add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRVW":
                defined.setdefault(parts[2], set()).add(u)
    edges, why = {}, {}
    for u, syms in undefined.items():
        for s in syms:
            for b in defined.get(s, ()):
                if b != u:
                    edges.setdefault(u, set()).add(b)
                    why.setdefault((u, b), []).append(s)
    return edges, why


def show_cycles(title, edges, why=None):
    comps = [c for c in sccs(set(edges) | {b for v in edges.values()
                                           for b in v}, edges)
             if len(c) > 1]
    if not comps:
        print(f"{title}: no cycle")
        return 0
    for c in comps:
        print(f"{title}: a cycle of {len(c)} files: {' '.join(c)}")
        for a in c:
            for b in sorted(edges.get(a, ())):
                if b in c:
                    names = ""
                    if why:
                        syms = sorted(why[(a, b)])
                        names = ": " + ", ".join(syms[:4]) + \
                                (f" +{len(syms) - 4}" if len(syms) > 4 else "")
                    print(f"  {a} -> {b}{names}")
    return len(comps)


def show_layers(units, edges):
    """Each file on the level above everything it uses (0: uses none)."""
    level = {}

    def lv(u, seen=()):
        if u not in level:
            level[u] = 1 + max((lv(b, seen + (u,)) for b in edges.get(u, ())
                                if b not in seen), default=-1)
        return level[u]
    for u in units:
        lv(u)
    print("layers (a file uses only files on lower lines):")
    for n in range(max(level.values()), -1, -1):
        print(f"  {n:2d}: {' '.join(sorted(u for u in units if level[u] == n))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--objs", default=None)
    ap.add_argument("--max-lines", type=int, default=700)
    args = ap.parse_args()
    if args.objs is None:
        # The 6.1 build of make module / make build-test.
        release = subprocess.run([os.path.join(TOP, "scripts/kernel.sh"),
                                  "6.1"], capture_output=True,
                                 text=True).stdout.strip()
        args.objs = os.path.join(TOP, "build", "mod-" + release,
                                 "src", "module")
    units = sorted(n[:-2] for n in os.listdir(MODULE) if n.endswith(".c"))
    missing = [u for u in units
               if not os.path.exists(os.path.join(args.objs, u + ".o"))]
    if missing:
        print(f"check-layers: no {missing[0]}.o in {args.objs}: "
              "build the module first (make module KERNEL=6.1)", file=sys.stderr)
        return 2
    bad = show_cycles("includes", include_graph(set(units)))
    edges, why = use_graph(units, args.objs)
    cyc = show_cycles("uses", edges, why)
    bad += cyc
    if not cyc:
        show_layers(units, edges)
    for u in units:
        with open(os.path.join(MODULE, u + ".c"), encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > args.max_lines:
            print(f"size: module/{u}.c has {n} lines, over {args.max_lines}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
