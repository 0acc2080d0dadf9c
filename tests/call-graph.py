#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""call-graph.py: which source file calls (or refers to) functions defined in which other, read
from the object files with `nm`; fails when files call each other in a loop, and names the calls.

  call-graph.py OBJDIR            checks every *.o below OBJDIR (a CMake target's folder)
  call-graph.py --edges OBJDIR    also prints every file-to-file edge and the symbols on it
"""
import os
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) global symbol names of one object file."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVW":   # global code and data (lower case: local to the file)
            defined.add(name)
    return defined, undefined


def file_graph(objdir):
    """{file: {other file: sorted symbols file uses from it}}, files named as their sources."""
    objects = sorted(os.path.join(d, f) for d, _, fs in os.walk(objdir) for f in fs if f.endswith(".o"))
    owner, uses = {}, {}
    for obj in objects:
        name = os.path.relpath(obj, objdir)[:-len(".o")]
        defined, undefined = symbols(obj)
        for s in defined:
            owner.setdefault(s, name)
        uses[name] = undefined
    graph = {name: {} for name in uses}
    for name, undefined in uses.items():
        for s in undefined:
            other = owner.get(s)
            if other is not None and other != name:
                graph[name].setdefault(other, []).append(s)
    for edges in graph.values():
        for other in edges:
            edges[other].sort()
    return graph


def loops(graph):
    """The strongly connected components of more than one file (Tarjan), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def main(argv):
    show_edges = "--edges" in argv
    args = [a for a in argv if a != "--edges"]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    graph = file_graph(args[0])
    if not graph:
        print(f"call-graph: no object files below {args[0]}", file=sys.stderr)
        return 2
    if show_edges:
        for f in sorted(graph):
            for g in sorted(graph[f]):
                print(f"{f} -> {g}: {' '.join(graph[f][g])}")
    found = loops(graph)
    for component in found:
        print("call-graph: these files call each other in a loop:", file=sys.stderr)
        for f in component:
            for g in sorted(graph[f]):
                if g in component:
                    print(f"  {f} -> {g}: {' '.join(graph[f][g])}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
