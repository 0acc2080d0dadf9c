#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""synth-validation.py: rt-synth --validation adds validation rollouts and changes no training line.

Compares an experiment written with --validation (folders or append) with the one the same
arguments write without it: every training file holds the same lines, except that the folder,
the "step" field and, in the appended layout, workid-vs-worker (and the key order) differ; the
validation rollouts are where verl runs them, with their own request counts, inside the gaps the
training leaves; the two console logs agree on every training step line.
Usage: synth-validation.py LAYOUT BASE BASE.log VAL VAL.log FIRST STEPS TEST_FREQ BEFORE FAULTS
                           WORKERS VAL_REQUESTS
(BEFORE and FAULTS are 0 or 1). The folder numbering is worked out here from the format's rules (docs/input.md, "Validation rollouts").
"""
import datetime
import json
import os
import re
import sys

PHASES = ["timing_s/reward", "timing_s/old_log_prob", "timing_s/ref", "timing_s/adv",
          "timing_s/update_actor"]
VAL_CORE = "val-core/openai/gsm8k/reward/mean@1"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def seconds(stamp):
    return datetime.datetime.fromisoformat(stamp).timestamp()


def plan(layout, first, steps, freq, before, faults):
    """(training folder per step, validations as (after, folder, own_folder))."""
    after = [i for i in range(steps) if freq > 0
             and (i == steps - 1 and not faults or i < steps - 1 and (first + i) % freq == 0)]
    train, vals = [], []
    if layout == "folders":
        n = first
        if before:
            vals.append((-1, n, True))
            n += 1
        for i in range(steps):
            train.append(n)
            n += 1
            if i in after:
                vals.append((i, n, True))
                n += 1
    else:
        if before:
            vals.append((-1, first - 1, True))
        for i in range(steps):
            train.append(first + i)
            if i in after:
                vals.append((i, first + i, False))
    return train, vals


def lines_of(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read().split("\n")


def parse(line):
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def strip_frame(text):
    """A line's text without where it says its rank and step, in either frame."""
    text = re.sub(r', "workid": -?\d+, "step": -?\d+\}$', "}", text)
    return re.sub(r'^(\{"timestamp": "[^"]*"), "step": -?\d+, "worker": -?\d+', r"\1", text)


def split_rollouts(lines):
    """The lines up to and including the first total_step_duration, and the rest."""
    for i, line in enumerate(lines):
        obj = parse(line)
        if obj is not None and obj.get("event") == "total_step_duration":
            return lines[:i + 1], lines[i + 1:]
    return lines, []


def same_training(base_path, val_path, layout, folder, worker):
    base = lines_of(base_path)
    got = lines_of(val_path)
    if layout == "append":
        got, _ = split_rollouts(got)
        base, rest = split_rollouts(base)
        check(not [l for l in rest if l], f"{base_path}: lines after its total_step_duration")
    check(len(base) == len(got), f"{val_path}: {len(got)} lines, {len(base)} without validation")
    for n, (a, b) in enumerate(zip(base, got), 1):
        oa, ob = parse(a), parse(b)
        if oa is None or ob is None:
            # damage: the same text, a line cut mid-object the same way
            sa, sb = strip_frame(a), strip_frame(b)
            check(sa == sb or (n == len(base) and (sa.startswith(sb) or sb.startswith(sa))),
                  f"{val_path}:{n}: damaged line differs: {b[:120]!r} vs {a[:120]!r}")
            continue
        check(folder is None or ob.get("step") == folder,
              f"{val_path}:{n}: step {ob.get('step')}, not {folder}")
        if layout == "append":
            check(list(ob)[:4] == ["timestamp", "step", "worker", "event"] and "workid" not in ob
                  and (worker is None or ob["worker"] == worker),
                  f"{val_path}:{n}: not the 2026 frame: {b[:120]}")
        else:
            check(strip_frame(a) == strip_frame(b), f"{val_path}:{n}: text differs")
        for o in (oa, ob):
            for k in ("step", "workid", "worker"):
                o.pop(k, None)
        check(oa == ob, f"{val_path}:{n}: {b[:160]} differs from {a[:160]}")


def times(lines):
    """(first start, last end) of the JSON lines."""
    lo, hi = float("inf"), float("-inf")
    for line in lines:
        obj = parse(line)
        if obj is None:
            continue
        end = seconds(obj["timestamp"])
        lo = min(lo, end - obj.get("duration_sec", 0.0))
        hi = max(hi, end)
    return lo, hi


def step_files(exp, folder):
    d = os.path.join(exp, f"step_{folder}")
    return sorted(f for f in os.listdir(d)) if os.path.isdir(d) else []


def console(path):
    """step -> metrics of each step line, in the order of the log."""
    steps = []
    text = open(path, encoding="utf-8").read().replace("\r", "\n")
    for line in text.split("\n"):
        m = re.search(r"step:(\d+)((?: - [^ :]+:\S+)+)\s*$", line)
        if m:
            pairs = [p.rsplit(":", 1) for p in m.group(2).split(" - ")[1:]]
            steps.append((int(m.group(1)), {k: float(v) for k, v in pairs}))
    return steps


def main():
    layout, base, base_log, exp, exp_log = sys.argv[1:6]
    first, steps, freq, before, faults, workers, val_requests = map(int, sys.argv[6:13])
    train, vals = plan(layout, first, steps, freq, before, faults)
    base_folders = [first + i for i in range(steps)]

    want = set(train) | {f for _, f, own in vals if own}
    got = {int(n[5:]) for n in os.listdir(exp) if n.startswith("step_")}
    check(got == want, f"{exp}: folders {sorted(got)}, expected {sorted(want)}")

    # the training rollouts: the same files and lines as without validation
    spans = []
    for i, (b, f) in enumerate(zip(base_folders, train)):
        names = step_files(base, b)
        extra = ["worker_-1.jsonl"] if layout == "append" else []
        check(step_files(exp, f) == sorted(names + extra),
              f"{exp}/step_{f}: {step_files(exp, f)}, expected {names} {extra}")
        span = [float("inf"), float("-inf")]
        for name in names:
            if not name.endswith((".jsonl", ".bak")):
                check(open(os.path.join(base, f"step_{b}", name), "rb").read()
                      == open(os.path.join(exp, f"step_{f}", name), "rb").read(), f"{name} differs")
                continue
            w = int(re.match(r"worker_(-?\d+)", name).group(1))
            same_training(os.path.join(base, f"step_{b}", name), os.path.join(exp, f"step_{f}", name),
                          layout, f, w)
            lo, hi = times(lines_of(os.path.join(base, f"step_{b}", name)))
            span = [min(span[0], lo), max(span[1], hi)]
        spans.append(span)
    if os.path.isdir(os.path.join(base, "plots")):  # --faults: a copy of a training file
        same_training(os.path.join(base, "plots", "worker_0.jsonl"),
                      os.path.join(exp, "plots", "worker_0.jsonl"), layout, None, None)

    # the validation rollouts: fewer requests, inside the gap after the step they follow
    for after, folder, own in vals:
        lo_all, hi_all = float("inf"), float("-inf")
        for w in range(workers):
            lines = lines_of(os.path.join(exp, f"step_{folder}", f"worker_{w}.jsonl"))
            if not own:
                lines = split_rollouts(lines)[1]
            objs = [parse(l) for l in lines if l]
            check(all(o is not None for o in objs), f"validation in step_{folder}: a damaged line")
            check(all(o["step"] == folder for o in objs), f"validation in step_{folder}: step field")
            starts = sum(o["event"] == "request_start" for o in objs)
            check(starts == val_requests, f"step_{folder}/worker_{w}: {starts} validation requests")
            totals = [o for o in objs if o["event"] == "total_step_duration"]
            check(len(totals) == 1 and objs[-1] is totals[0], f"step_{folder}/worker_{w}: its total")
            lo, hi = times(lines)
            lo_all, hi_all = min(lo_all, lo), max(hi_all, hi)
        prev_end = spans[after][1] if after >= 0 else float("-inf")
        next_start = spans[after + 1][0] if after + 1 < steps else float("inf")
        check(prev_end < lo_all and hi_all < next_start,
              f"validation in step_{folder} ({lo_all}-{hi_all}) is not between {prev_end} and {next_start}")

    # the trainer's sections of the 2026 logger, after each step's rollout
    if layout == "append":
        for i, f in enumerate(train):
            objs = [parse(l) for l in lines_of(os.path.join(exp, f"step_{f}", "worker_-1.jsonl")) if l]
            check(objs and all(o and o["worker"] == -1 and o["step"] == f and "extra" not in o
                               for o in objs), f"step_{f}/worker_-1.jsonl")
            check(objs[0]["event"] == "reward_duration", f"step_{f}/worker_-1.jsonl: no reward_duration")
            lo, hi = times(lines_of(os.path.join(exp, f"step_{f}", "worker_-1.jsonl")))
            check(spans[i][1] <= lo + 1e-6 and (i + 1 == steps or hi < spans[i + 1][0]),
                  f"step_{f}/worker_-1.jsonl is not between the rollouts")

    # the console logs: the same training lines, validation's metrics where it ran
    base_steps, val_steps = console(base_log), console(exp_log)
    validated = {first + a for a, _, _ in vals if a >= 0}
    training = [(s, m) for s, m in val_steps if "timing_s/gen" in m]
    check([s for s, _ in training] == [s for s, _ in base_steps],
          f"{exp_log}: training steps {[s for s, _ in training]}")
    if before:
        check(val_steps[0][0] == first - 1 and set(val_steps[0][1]) >= {VAL_CORE}
              and "timing_s/gen" not in val_steps[0][1], f"{exp_log}: no step:{first - 1} validation line first")
    check(len(val_steps) == len(base_steps) + before, f"{exp_log}: {len(val_steps)} step lines")
    for (s, a), (_, b) in zip(base_steps, training):
        if s not in validated:
            check(a == b, f"{exp_log}: step {s} differs from the log without validation")
            continue
        check(VAL_CORE in b and "timing_s/testing" in b, f"{exp_log}: step {s} has no validation metrics")
        changed = set(PHASES) | {"timing_per_token_ms/update_actor"}
        for k, v in a.items():
            check(k in changed or b.get(k) == v, f"{exp_log}: step {s}: {k} {b.get(k)} != {v}")
        check(abs(sum(a[k] for k in PHASES) - sum(b[k] for k in PHASES) - b["timing_s/testing"])
              < 1e-3, f"{exp_log}: step {s}: phases and testing do not fill the training")


main()
