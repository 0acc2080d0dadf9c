#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""oracle.py: a second, deliberately plain implementation of two definitions, for the tests.

Reads an experiment the slow, obvious way (json.loads on every line) and prints what
`rt-check --json` or `rt-cdf --json` must answer, so generated experiments of any size can be
checked against the definitions rather than against numbers stored in the repository.
Usage: oracle.py check|cdf EXP
"""
import json
import math
import os
import re
import sys

V1 = {"preprocessing", "async_generate", "sorting", "barrier", "broadcast", "data_extraction",
      "padding", "concatenation", "batch_construction", "cache_flush", "final_construction",
      "total", "engine_call", "tool_parsing", "running_state"}
STEP_V2 = ["preprocessing_duration", "async_generate_duration", "sorting_duration",
           "barrier_wait_duration", "broadcast_duration", "data_extraction_duration",
           "padding_duration", "concatenation_duration", "batch_construction_duration",
           "cache_flush_duration", "final_construction_duration", "total_step_duration"]
V2 = set(STEP_V2) | {
    "step_response_length_stats", "request_start", "pending_state_handling",
    "tool_creation_pending_state", "interaction_start_pending_state", "turn_start",
    "turn_pre_process", "engine_generate_setup", "engine_async_generate_actual",
    "turn_engine_call", "turn_tool_parsing", "turn_post_process", "turn_end",
    "interaction_response", "interacting_state", "main_loop", "reward_calculation", "finalization"}
# tool_execution, tool_response_processing and tool_calling_state: both generations write them


def tree(exp):
    steps = {}
    for name in os.listdir(exp):
        m = re.fullmatch(r"step_(\d+)", name)
        if m and os.path.isdir(os.path.join(exp, name)):
            files = {}
            for f in os.listdir(os.path.join(exp, name)):
                w = re.fullmatch(r"worker_(\d+)\.jsonl", f)
                if w and os.path.isfile(os.path.join(exp, name, f)):
                    files[int(w.group(1))] = os.path.join(exp, name, f)
            steps[int(m.group(1))] = files
    return dict(sorted(steps.items()))


def objects(path):
    data = open(path, "rb").read()
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for piece in pieces:
        try:
            obj = json.loads(piece)
        except ValueError:
            yield None
            continue
        yield obj if isinstance(obj, dict) else None


def check(exp):
    steps = tree(exp)
    out = {"steps": len(steps), "step_min": min(steps), "step_max": max(steps),
           "workers": max(len(f) for f in steps.values()), "files": 0, "lines": 0,
           "events": 0, "bad_lines": 0, "requests": 0}
    seen_v1 = seen_v2 = False
    for files in steps.values():
        for path in files.values():
            out["files"] += 1
            for obj in objects(path):
                out["lines"] += 1
                if obj is None:
                    out["bad_lines"] += 1
                    continue
                out["events"] += 1
                ev = obj.get("event")
                seen_v1 |= ev in V1
                seen_v2 |= ev in V2
                out["requests"] += ev == "async_rollout_request_complete"
    out["schema"] = "mixed" if seen_v1 and seen_v2 else ("v1" if seen_v1 else "v2")
    workers = sorted({w for f in steps.values() for w in f})
    out["missing"] = [{"step": s, "worker": w} for s, f in steps.items() for w in workers if w not in f]
    return out


def percentile(sorted_values, q):
    pos = (q / 100) * (len(sorted_values) - 1)
    lo = math.floor(pos)
    if lo + 1 >= len(sorted_values):
        return sorted_values[-1]
    return sorted_values[lo] + (sorted_values[lo + 1] - sorted_values[lo]) * (pos - lo)


def summary(values):
    v = sorted(values)
    mean = sum(v) / len(v)
    out = {"count": len(v), "mean": mean,
           "std": math.sqrt(sum((x - mean) ** 2 for x in v) / len(v)), "min": v[0], "max": v[-1]}
    for name, q in (("p50", 50), ("p80", 80), ("p90", 90), ("p95", 95), ("p99", 99), ("p999", 99.9)):
        out[name] = percentile(v, q)
    return out


def cdf(exp):
    per_step, everything = [], []
    for step, files in tree(exp).items():
        values = []
        for path in files.values():
            for obj in objects(path):
                if obj and obj.get("event") == "async_rollout_request_complete":
                    d = obj.get("duration_sec")
                    if isinstance(d, (int, float)) and math.isfinite(d):
                        values.append(float(d))
        if values:
            per_step.append(dict(step=step, **summary(values)))
            everything += values
    return {"event": "async_rollout_request_complete", "steps": per_step, "all": summary(everything)}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "cdf"):
        sys.exit(__doc__)
    print(json.dumps({"check": check, "cdf": cdf}[sys.argv[1]](sys.argv[2])))
