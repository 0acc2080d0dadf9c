#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""baseline_cdf.py: the request-duration CDF the way the original Python scripts compute it.

Kept as the benchmark's point of comparison: os.walk over the experiment, json.loads on
every line, then per-step percentiles of the async_rollout_request_complete durations.
Usage: baseline_cdf.py EXP   (prints one line per step and one for all steps)
"""
import json
import math
import os
import re
import sys


def percentile(values, q):
    pos = (len(values) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def main(exp):
    per_step = {}
    for root, _dirs, files in os.walk(exp):
        m = re.search(r"step_(\d+)$", root)
        if not m:
            continue
        for name in files:
            if not re.fullmatch(r"worker_\d+\.jsonl", name):
                continue
            with open(os.path.join(root, name)) as f:
                for line in f:
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(obj, dict) and obj.get("event") == "async_rollout_request_complete":
                        d = obj.get("duration_sec")
                        if isinstance(d, (int, float)) and math.isfinite(d):
                            per_step.setdefault(int(m.group(1)), []).append(d)
    everything = []
    for step in sorted(per_step):
        v = sorted(per_step[step])
        everything += v
        print(f"step {step}: n={len(v)} p50={percentile(v, 50):.3f} p99={percentile(v, 99):.3f}")
    everything.sort()
    print(f"all: n={len(everything)} p50={percentile(everything, 50):.3f} p99={percentile(everything, 99):.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
