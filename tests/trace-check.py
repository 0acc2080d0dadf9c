#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# trace-check.py: checks a Chrome Trace Event Format file (JSON object form, .gz too) the way the
# viewers need it: what Perfetto, chrome://tracing, speedscope or DevTools would drop or misdraw.
#
#   python3 tests/trace-check.py TRACE.json[.gz] [--json]
#
# Fails (exit 1, one line per problem on stderr, the first 20 of each kind) on:
#   - a document that is not one JSON object with a "traceEvents" array, or a number that is
#     not finite (NaN, Infinity, or a literal too large for a double);
#   - an event without a "ph", without a non-empty string "name", or without an integer "pid";
#     an event other than an "E" without a non-empty string "cat" (Perfetto groups, filters and
#     queries slices by it; without one they all fall in one nameless category);
#     a timed event without a numeric "ts"; an "X" without a "dur" >= 0;
#   - two "X" events of one thread (pid, tid) that overlap partially (one starts inside the
#     other and ends after it): viewers drop one of them;
#   - a "B" without its "E" on the same thread or an "E" without a "B" (with names, they must
#     agree), and a "b"/"e" pair of an async id likewise;
#   - a process that has events but no "process_name" metadata, a thread that has events but
#     no "thread_name";
#   - a counter ("C") without numeric args.
# With --json, prints what it counted: {"events", "complete", "counters", "metadata",
# "processes", "threads", "max_depth", "categories" (events of each "cat")}.
import gzip
import json
import math
import sys

LIMIT = 20


class Problems:
    def __init__(self):
        self.by_kind = {}

    def add(self, kind, text):
        self.by_kind.setdefault(kind, []).append(text)

    def report(self):
        for kind, texts in self.by_kind.items():
            for t in texts[:LIMIT]:
                print(f"trace-check: {kind}: {t}", file=sys.stderr)
            if len(texts) > LIMIT:
                print(f"trace-check: {kind}: ... and {len(texts) - LIMIT} more", file=sys.stderr)
        return not self.by_kind


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load(path, problems):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()

    def bad_constant(name):
        problems.add("non-finite number", name)
        return 0.0

    def parse_float(text):
        v = float(text)
        if not math.isfinite(v):
            problems.add("non-finite number", text)
        return v

    def parse_int(text):
        v = int(text)
        try:
            float(v)
        except OverflowError:
            problems.add("non-finite number", f"{text[:40]}... (too large for a double)")
        return v

    return json.loads(raw.decode("utf-8"), parse_constant=bad_constant, parse_float=parse_float,
                      parse_int=parse_int)


def describe(e):
    return json.dumps(e)[:160]


def check_nesting(xs, where, problems):
    """xs: (ts, dur, event) of one thread; returns the deepest nesting."""
    xs.sort(key=lambda x: (x[0], -x[1]))
    open_ends = []   # (end, event) of the events that hold the next one
    depth = 0
    for ts, dur, e in xs:
        end = ts + dur
        while open_ends and open_ends[-1][0] <= ts:
            open_ends.pop()
        if open_ends and end > open_ends[-1][0]:
            holder = open_ends[-1][1]
            problems.add("partial overlap", f"{where}: {describe(holder)} and {describe(e)}")
        open_ends.append((end, e))
        depth = max(depth, len(open_ends))
    return depth


def check(doc, problems):
    counts = {"events": 0, "complete": 0, "counters": 0, "metadata": 0, "processes": 0, "threads": 0,
              "max_depth": 0, "categories": {}}
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        problems.add("document", "not a JSON object with a traceEvents array")
        return counts
    events = doc["traceEvents"]
    counts["events"] = len(events)
    process_names, thread_names = set(), set()
    used_pids, used_threads = set(), set()
    complete = {}    # (pid, tid) -> [(ts, dur, event)]
    begun = {}       # (pid, tid) -> [names of open B events]
    async_open = {}  # (pid, cat, id, name) -> open b events
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            problems.add("event", f"#{i} is not an object")
            continue
        ph = e.get("ph")
        name = e.get("name")
        pid = e.get("pid")
        tid = e.get("tid", 0)
        if not isinstance(ph, str) or not ph:
            problems.add("event without ph", describe(e))
            continue
        if ph != "E" and (not isinstance(name, str) or not name):
            problems.add("unnamed event", describe(e))
        cat = e.get("cat")
        if ph != "E" and (not isinstance(cat, str) or not cat):
            problems.add("event without a cat", describe(e))
        elif isinstance(cat, str):
            counts["categories"][cat] = counts["categories"].get(cat, 0) + 1
        if not isinstance(pid, int) or isinstance(pid, bool):
            problems.add("event without an integer pid", describe(e))
            continue
        if ph == "M":
            counts["metadata"] += 1
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            label = args.get("name")
            if name in ("process_name", "thread_name") and (not isinstance(label, str) or not label):
                problems.add("unnamed event", f"{name} without args.name: {describe(e)}")
            elif name == "process_name":
                process_names.add(pid)
            elif name == "thread_name":
                thread_names.add((pid, tid))
            continue
        ts = e.get("ts")
        if not is_number(ts):
            problems.add("event without a numeric ts", describe(e))
            continue
        used_pids.add(pid)
        if ph == "C":
            counts["counters"] += 1
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(is_number(v) for v in args.values()):
                problems.add("counter without numeric args", describe(e))
            continue
        used_threads.add((pid, tid))
        if ph == "X":
            counts["complete"] += 1
            dur = e.get("dur")
            if not is_number(dur) or dur < 0:
                problems.add("X without a dur >= 0", describe(e))
                continue
            complete.setdefault((pid, tid), []).append((ts, dur, e))
        elif ph == "B":
            begun.setdefault((pid, tid), []).append(name)
        elif ph == "E":
            stack = begun.get((pid, tid), [])
            if not stack:
                problems.add("unmatched E", describe(e))
            else:
                opened = stack.pop()
                if isinstance(name, str) and name and name != opened:
                    problems.add("unmatched E", f"closes {opened!r}: {describe(e)}")
        elif ph in ("b", "e"):
            key = (pid, e.get("cat"), e.get("id"), name)
            if ph == "b":
                async_open[key] = async_open.get(key, 0) + 1
            elif async_open.get(key, 0) == 0:
                problems.add("unmatched e", describe(e))
            else:
                async_open[key] -= 1
    for (pid, tid), stack in sorted(begun.items()):
        for name in stack:
            problems.add("unmatched B", f"pid {pid} tid {tid}: {name!r} never ends")
    for key, n in sorted(async_open.items(), key=str):
        if n:
            problems.add("unmatched b", f"{key}: {n} never end")
    for pid in sorted(used_pids - process_names):
        problems.add("missing process name", f"pid {pid}")
    for pid, tid in sorted(used_threads - thread_names):
        problems.add("missing thread name", f"pid {pid} tid {tid}")
    for (pid, tid), xs in sorted(complete.items()):
        counts["max_depth"] = max(counts["max_depth"], check_nesting(xs, f"pid {pid} tid {tid}", problems))
    counts["processes"] = len(process_names | used_pids)
    counts["threads"] = len(thread_names | used_threads)
    return counts


def main(argv):
    args = [a for a in argv[1:] if a != "--json"]
    if len(args) != 1:
        print("usage: trace-check.py TRACE.json[.gz] [--json]", file=sys.stderr)
        return 2
    problems = Problems()
    try:
        doc = load(args[0], problems)
    except (OSError, UnicodeDecodeError, ValueError, EOFError) as e:
        print(f"trace-check: {args[0]}: not a readable JSON document: {e}", file=sys.stderr)
        return 1
    counts = check(doc, problems)
    if "--json" in argv:
        print(json.dumps(counts))
    return 0 if problems.report() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
