#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""compare-cdf.py: checks that two `rt-cdf --json` documents (or DuckDB's answer to the same
query, bench/duckdb-quantiles.mjs) agree: the same steps, the same counts, and every figure
within a relative tolerance (the two interpolate percentiles with formulas that differ in the
last bits, and sum in other orders).

Usage: compare-cdf.py A.json B.json [REL_TOL]     (default 1e-9; exit 1 when they differ)
Prints one line: how many figures were compared and the largest relative difference.
"""
import json
import math
import sys

KEYS = ["count", "mean", "std", "min", "max", "p50", "p80", "p90", "p95", "p99", "p999"]


def rows(doc):
    out = {("step", r["step"]): r for r in doc["steps"]}
    if doc.get("all"):
        out[("all", None)] = doc["all"]
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    a, b = (rows(json.load(open(p))) for p in sys.argv[1:3])
    tol = float(sys.argv[3]) if len(sys.argv) == 4 else 1e-9
    problems, worst, compared = [], 0.0, 0
    if a.keys() != b.keys():
        problems.append(f"steps differ: only in A {sorted(set(a) - set(b), key=str)}, "
                        f"only in B {sorted(set(b) - set(a), key=str)}")
    for key in sorted(set(a) & set(b), key=str):
        for k in KEYS:
            x, y = a[key].get(k), b[key].get(k)
            compared += 1
            if x is None or y is None:
                if x is not y:
                    problems.append(f"{key} {k}: {x} against {y}")
                continue
            rel = abs(x - y) / max(abs(x), abs(y)) if (x or y) else 0.0
            if math.isnan(rel) or rel > tol:
                problems.append(f"{key} {k}: {x!r} against {y!r} (relative {rel:.3g})")
            elif rel > worst:
                worst = rel
    for p in problems[:20]:
        print("differ:", p)
    print(f"{compared} figures compared, largest relative difference {worst:.3g}"
          f"{'' if not problems else f', {len(problems)} beyond {tol:g}'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
