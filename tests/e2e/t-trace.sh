#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-trace.sh: rt-trace's Chrome traces open in the viewers: tests/trace-check.py (itself checked
# here on small bad traces) passes on the trace of every fixture, sample and a generated
# experiment; .gz holds the same bytes; --json counts what the file holds; --worker and -o.
. "$(dirname "$0")/lib.sh"

# ---- the checker itself: a good trace passes, each kind of bad one fails, for its reason ----
CHECK="$SRC/tests/trace-check.py"
META='{"ph": "M", "cat": "__metadata", "name": "process_name", "pid": 1, "args": {"name": "worker 0"}},
      {"ph": "M", "cat": "__metadata", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "requests 0"}},
      {"ph": "M", "cat": "__metadata", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "requests 1"}}'
# trace_with EVENTS: a trace of the metadata above and EVENTS into $TMP/t.json
trace_with () { printf '{"displayTimeUnit": "ms", "traceEvents": [%s%s]}' "$META" "${1:+, $1}" >"$TMP/t.json"; }

# nested, touching, equal, a zero-length event at an edge, a partial overlap on two threads,
# a matched B/E pair, a counter: all fine
trace_with '{"ph": "X", "cat": "c", "name": "r", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "c", "name": "t", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "c", "name": "p", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
  {"ph": "X", "cat": "c", "name": "q", "pid": 1, "tid": 1, "ts": 30, "dur": 70},
  {"ph": "X", "cat": "c", "name": "z", "pid": 1, "tid": 1, "ts": 100, "dur": 0},
  {"ph": "X", "cat": "c", "name": "s", "pid": 1, "tid": 1, "ts": 100, "dur": 5.5},
  {"ph": "X", "cat": "c", "name": "o", "pid": 1, "tid": 2, "ts": 50, "dur": 100},
  {"ph": "B", "cat": "c", "name": "b", "pid": 1, "tid": 2, "ts": 200}, {"ph": "E", "cat": "c", "pid": 1, "tid": 2, "ts": 210},
  {"ph": "C", "cat": "c", "name": "in flight", "pid": 1, "ts": 0, "args": {"requests": 2}}'
expect_exit 0 python3 "$CHECK" "$TMP/t.json" --json
expect_grep '"complete": 7' "$TMP/out" "trace-check counts the good trace's X events"
expect_grep '"max_depth": 3' "$TMP/out" "trace-check's nesting depth"

# bad_trace REASON EVENTS: trace-check fails on EVENTS, saying REASON
bad_trace () {
  trace_with "$2"
  expect_exit 1 python3 "$CHECK" "$TMP/t.json"
  expect_grep "$1" "$TMP/err" "trace-check on a trace with: $2"
}
bad_trace "partial overlap" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "cat": "c", "name": "b", "pid": 1, "tid": 1, "ts": 9, "dur": 10}'
bad_trace "partial overlap" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "c", "name": "in", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
  {"ph": "X", "cat": "c", "name": "out", "pid": 1, "tid": 1, "ts": 15, "dur": 10}'
bad_trace "partial overlap" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0.5, "dur": 10},
  {"ph": "X", "cat": "c", "name": "b", "pid": 1, "tid": 1, "ts": 0, "dur": 10}'
bad_trace "unmatched B" '{"ph": "B", "cat": "c", "name": "open", "pid": 1, "tid": 1, "ts": 0}'
bad_trace "unmatched E" '{"ph": "E", "cat": "c", "name": "close", "pid": 1, "tid": 1, "ts": 0}'
bad_trace "unmatched E" '{"ph": "B", "cat": "c", "name": "x", "pid": 1, "tid": 1, "ts": 0}, {"ph": "E", "cat": "c", "name": "y", "pid": 1, "tid": 1, "ts": 1}'
bad_trace "unmatched e" '{"ph": "e", "name": "a", "cat": "c", "id": 1, "pid": 1, "tid": 1, "ts": 0}'
bad_trace "unmatched b" '{"ph": "b", "name": "a", "cat": "c", "id": 1, "pid": 1, "tid": 1, "ts": 0}'
bad_trace "unnamed event" '{"ph": "X", "cat": "c", "name": "", "pid": 1, "tid": 1, "ts": 0, "dur": 1}'
bad_trace "unnamed event" '{"ph": "X", "cat": "c", "pid": 1, "tid": 1, "ts": 0, "dur": 1}'
bad_trace "unnamed event" '{"ph": "M", "cat": "__metadata", "name": "thread_name", "pid": 1, "tid": 3, "args": {}}'
bad_trace "event without a cat" '{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1}'
bad_trace "event without a cat" '{"ph": "C", "cat": "", "name": "c", "pid": 1, "ts": 0, "args": {"n": 1}}'
bad_trace "event without a cat" '{"ph": "M", "name": "thread_name", "pid": 1, "tid": 5, "args": {"name": "t"}}'
bad_trace "missing process name" '{"ph": "X", "cat": "c", "name": "a", "pid": 2, "tid": 1, "ts": 0, "dur": 1},
  {"ph": "M", "cat": "__metadata", "name": "thread_name", "pid": 2, "tid": 1, "args": {"name": "t"}}'
bad_trace "missing process name" '{"ph": "C", "cat": "c", "name": "in flight", "pid": 3, "ts": 0, "args": {"n": 1}}'
bad_trace "missing thread name" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 9, "ts": 0, "dur": 1}'
bad_trace "non-finite number" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": NaN, "dur": 1}'
bad_trace "non-finite number" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": Infinity}'
bad_trace "non-finite number" '{"ph": "C", "cat": "c", "name": "c", "pid": 1, "ts": 0, "args": {"n": -Infinity}}'
bad_trace "non-finite number" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 1e400, "dur": 1}'
bad_trace "non-finite number" "{\"ph\": \"X\", \"cat\": \"c\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1$(printf '0%.0s' $(seq 400)), \"dur\": 1}"
bad_trace "X without a dur" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0}'
bad_trace "X without a dur" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": -1}'
bad_trace "without a numeric ts" '{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": "0", "dur": 1}'
bad_trace "counter without numeric args" '{"ph": "C", "cat": "c", "name": "c", "pid": 1, "ts": 0, "args": {"n": "1"}}'
printf '[{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]' >"$TMP/t.json"
expect_exit 1 python3 "$CHECK" "$TMP/t.json"
expect_grep "traceEvents" "$TMP/err" "trace-check on the array form"
printf '{"traceEvents": [' >"$TMP/t.json"
expect_exit 1 python3 "$CHECK" "$TMP/t.json"
expect_grep "not a readable JSON" "$TMP/err" "trace-check on a cut trace"

# ---- every fixture, both samples and a generated experiment ----
"$BUILD/rt-synth" "$TMP/gen" --steps 3 --workers 4 --requests 20 --seed 7 --faults --quiet || fail "rt-synth"
# trace_counts TRACE: what the file holds, as rt-trace --json counts it (requests: the X events
# with a request_id; the time base: the earliest ts, which must be 0)
trace_counts () {
  "$PYTHON" - "$1" <<'PY'
import gzip, json, sys
path = sys.argv[1]
doc = json.load((gzip.open if path.endswith(".gz") else open)(path, "rb"))
ev = doc["traceEvents"]
timed = [e["ts"] for e in ev if "ts" in e]
print(json.dumps({"events": len(ev),
                  "processes": len({e["pid"] for e in ev if e.get("name") == "process_name"}),
                  "threads": len({(e["pid"], e["tid"]) for e in ev if e.get("name") == "thread_name"}),
                  "requests": sum(1 for e in ev if e["ph"] == "X" and "request_id" in e.get("args", {})),
                  "first_ts": min(timed) if timed else 0, "unit": doc.get("displayTimeUnit")}, sort_keys=True))
PY
}
for exp in "$SRC/fixtures/hand-v1" "$SRC/fixtures/hand-v2" "$SRC/fixtures/damaged" "$SAMPLES/exp-v1" \
           "$SAMPLES/exp-v2-damaged" "$TMP/gen"; do
  name=${exp##*/}
  state=$(tree_state "$exp")
  expect_exit 0 "$BUILD/rt-trace" "$exp" -o "$TMP/o-$name/trace.json" --json --no-cache
  cp "$TMP/out" "$TMP/$name.answer"
  expect_exit 0 "$PYTHON" "$SRC/tests/trace-check.py" "$TMP/o-$name/trace.json"
  # --json says what the file holds
  trace_counts "$TMP/o-$name/trace.json" >"$TMP/$name.counts"
  "$PYTHON" - "$TMP/$name.answer" "$TMP/$name.counts" "$TMP/o-$name/trace.json" <<'PY' >"$TMP/diff" 2>&1 && ok || { fail "rt-trace --json on $name:"; cat "$TMP/diff" >&2; }
import json, os, sys
answer, counts = (json.load(open(p)) for p in sys.argv[1:3])
bad = [f"{k}: --json {answer[k]}, file {counts[k]}" for k in ("events", "processes", "threads", "requests")
       if answer[k] != counts[k]]
if answer["bytes"] != os.path.getsize(sys.argv[3]) or answer["file"] != sys.argv[3]:
    bad.append(f"file {answer['file']} of {answer['bytes']} bytes")
if counts["first_ts"] != 0 or counts["unit"] != "ms":
    bad.append(f"first ts {counts['first_ts']}, displayTimeUnit {counts['unit']}")
if answer["requests"] == 0 or answer["processes"] == 0:
    bad.append("no request or no process")
print("\n".join(bad))
sys.exit(bool(bad))
PY
  # .gz: the same trace, compressed
  expect_exit 0 "$BUILD/rt-trace" "$exp" -o "$TMP/o-$name/trace.json.gz" --json --no-cache
  if gzip -dc "$TMP/o-$name/trace.json.gz" | cmp -s - "$TMP/o-$name/trace.json"; then ok; else
    fail "$name: trace.json.gz does not decompress to trace.json"; fi
  expect_grep "\"bytes\": $(stat -c %s "$TMP/o-$name/trace.json.gz")," "$TMP/out" "$name: --json bytes of the .gz"
  expect_no_temps "$TMP/o-$name" "rt-trace on $name"
  expect_tree_unchanged <(echo "$state") "$exp" "rt-trace on $name"
done
# the samples' requests are all there: every complete request with a duration of the
# newer logger's sample nests without a violation (its lines are a few us apart at most)
expect_grep '"violations": 0' "$TMP/exp-v2-damaged.answer" "rt-trace on exp-v2-damaged"
expect_grep '"requests": 168,' "$TMP/exp-v2-damaged.answer" "rt-trace on exp-v2-damaged (rt-cdf counts 168)"

# ---- categories: each event's "cat" is the one docs/trace.md gives its kind ----
for name in exp-v2-damaged gen; do
  "$PYTHON" - "$TMP/o-$name/trace.json" <<'PY' >"$TMP/diff" 2>&1 && ok || { fail "rt-trace's categories on $name:"; cat "$TMP/diff" >&2; }
import json, sys
tools = {"tool_execution", "tool_response_processing", "tool_calling_state"}
def kind(e):
    if e["ph"] == "M":
        return "__metadata"
    if e["ph"] == "C":
        return "counter"
    if e["tid"] == 1:
        return "step_section"
    if "request_id" in e.get("args", {}):
        return "request"
    if e["name"].startswith("turn "):
        return "turn"
    return "tool" if e["name"] in tools else "phase"
ev = json.load(open(sys.argv[1]))["traceEvents"]
bad = [f"{e.get('cat')!r}, expected {kind(e)!r}: {json.dumps(e)[:120]}" for e in ev if e.get("cat") != kind(e)]
seen = {e.get("cat") for e in ev}
want = {"__metadata", "counter", "step_section", "request", "turn", "phase", "tool"}
if seen != want:
    bad.append(f"categories {sorted(map(str, seen))}, expected {sorted(want)}")
print("\n".join(bad[:10]))
sys.exit(bool(bad))
PY
done

# ---- tool calls: between the turn that asked for them and the next, never inside a turn ----
# tool_in_turn TRACE: every tool call that a turn event holds on its thread (none should: a
# turn's span is its own lines', and its tool calls run after it)
tool_in_turn () {
  "$PYTHON" - "$1" <<'PY'
import bisect, json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
turns = {}
for e in ev:
    if e["cat"] == "turn":
        turns.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
for spans in turns.values():
    spans.sort()
bad = []
for e in ev:
    if e["cat"] != "tool":
        continue
    spans = turns.get((e["pid"], e["tid"]), [])
    i = bisect.bisect_right(spans, (e["ts"], float("inf"), "")) - 1
    if i >= 0 and e["ts"] < spans[i][1] and e["ts"] + e["dur"] <= spans[i][1]:
        bad.append(f"{e['name']} at {e['ts']} inside {spans[i][2]} {spans[i][:2]} (pid {e['pid']} tid {e['tid']})")
print("\n".join(bad[:10]))
sys.exit(bool(bad))
PY
}
for name in exp-v2-damaged gen; do
  tool_in_turn "$TMP/o-$name/trace.json" >"$TMP/diff" 2>&1 && ok || { fail "rt-trace on $name puts tool calls in turns:"; cat "$TMP/diff" >&2; }
done
# fixtures/tool-calls (fixtures/README.md): the logger's numbering, the samples' and a call that
# starts 0.5 ms before its turn's end, each request with turn 0 [1, 3] s and turn 1 [4, 6] s
expect_exit 0 "$BUILD/rt-trace" "$SRC/fixtures/tool-calls" -o "$TMP/tools.json" --no-cache --json
expect_grep '"clamped": 2, "violations": 0}' "$TMP/out" "rt-trace on tool-calls moves early's two calls to its turn's end"
expect_exit 0 "$PYTHON" "$SRC/tests/trace-check.py" "$TMP/tools.json"
tool_in_turn "$TMP/tools.json" >"$TMP/diff" 2>&1 && ok || { fail "rt-trace on tool-calls puts tool calls in turns:"; cat "$TMP/diff" >&2; }
"$PYTHON" - "$TMP/tools.json" <<'PY' >"$TMP/diff" 2>&1 && ok || { fail "rt-trace on tool-calls:"; cat "$TMP/diff" >&2; }
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
tid = {e["args"]["request_id"]: e["tid"] for e in ev if e["ph"] == "X" and e["cat"] == "request"}
got = {}
for e in ev:
    if e["ph"] == "X" and e["cat"] in ("turn", "tool"):
        got.setdefault(e["tid"], []).append((e["name"], e["ts"], e["dur"]))
calls = [("tool_calling_state", 3_000_000, 1_000_000), ("tool_execution", 3_000_000, 1_000_000)]
turns = [("turn 0", 1_000_000, 2_000_000), ("turn 1", 4_000_000, 2_000_000)]
want = {
    # real's last call (numbered 2) ends the request: no turn 2 of it alone
    "real": sorted(turns + calls + [("tool_execution", 6_000_000, 500_000)]),
    "older": sorted(turns + calls),
    # early's calls start at 2.9995 s, moved to turn 0's end
    "early": sorted(turns + calls),
}
bad = [f"{r}: {sorted(got.get(tid.get(r), []))}, expected {w}" for r, w in want.items() if sorted(got.get(tid.get(r), [])) != w]
print("\n".join(bad))
sys.exit(bool(bad))
PY

# ---- hand-v2, worked by hand (fixtures/README.md): times from its first line, steps apart ----
expect_exit 0 "$BUILD/rt-trace" "$SRC/fixtures/hand-v2" -o "$TMP/h.json" --no-cache
"$PYTHON" - "$TMP/h.json" <<'PY' >"$TMP/diff" 2>&1 && ok || { fail "rt-trace on hand-v2:"; cat "$TMP/diff" >&2; }
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = {(e["pid"], e["tid"], e["name"], e["ts"]): e["dur"] for e in ev if e["ph"] == "X"}
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"].endswith("_name")}
want = {
    # worker 0 step 1 starts at 10:00:00 (preprocessing 2 s ending 10:00:02): time 0
    (1, 1, "total_step_duration", 0): 15_000_000,
    (1, 1, "barrier_wait_duration", 11_000_000): 4_000_000,
    # requests b (10:00:02 to 10:00:06) and a (10:00:02 to 10:00:10) start together: by start,
    # the earlier end first, b takes the first thread and a a second one
    (1, 2, "LENGTH", 2_000_000): 4_000_000,
    (1, 3, "STOP", 2_000_000): 8_000_000,
    # a's turn 0: its lines turn_engine_call [3, 6] s and turn_end [3, 6.5] s
    (1, 3, "turn 0", 3_000_000): 3_500_000,
    (1, 3, "turn_engine_call", 3_000_000): 3_000_000,
    # step 2 starts a minute later, on the same tracks: d goes to the thread freed first (b's)
    (1, 1, "total_step_duration", 60_000_000): 12_000_000,
    (1, 2, "STOP", 61_000_000): 10_000_000,
}
bad = [f"{k}: {x.get(k)}, expected {v}" for k, v in want.items() if x.get(k) != v]
# turn 1 of request a ([6, 10] s) overlaps turn 0 ([3, 6.5] s) by half a second: left out;
# the turn_end lines are not written, their turns are
if any(k[2] in ("turn 1", "turn_end") for k in x):
    bad.append("turn 1 of request a, which overlaps turn 0, or a turn_end line is written")
want_names = {(1, None): "worker 0", (2, None): "worker 1", (1, 1): "step sections", (1, 2): "requests 0",
              (1, 3): "requests 1", (2, 2): "requests 0"}
bad += [f"name of {k}: {names.get(k)}" for k, v in want_names.items() if names.get(k) != v]
counter = [(e["ts"], e["args"]["requests"]) for e in ev if e["ph"] == "C" and e["pid"] == 1]
if counter != [(2_000_000, 2), (6_000_000, 1), (10_000_000, 0), (61_000_000, 1), (71_000_000, 0)]:
    bad.append(f"requests in flight of worker 0: {counter}")
print("\n".join(bad))
sys.exit(bool(bad))
PY
expect_exit 0 "$BUILD/rt-trace" "$SRC/fixtures/hand-v2" -o "$TMP/h.json" --no-cache --json
expect_grep '"violations": 1}' "$TMP/out" "rt-trace on hand-v2 counts the overlapping turn"

# ---- options ----
# --worker: only those processes; the time base is their first line
expect_exit 0 "$BUILD/rt-trace" "$SRC/fixtures/hand-v2" -o "$TMP/w.json" --worker 1 --no-cache --json
expect_grep '"processes": 1,' "$TMP/out" "rt-trace --worker 1"
trace_counts "$TMP/w.json" >"$TMP/w.counts"
expect_grep '"first_ts": 0' "$TMP/w.counts" "rt-trace --worker 1 starts at 0"
expect_exit 0 "$PYTHON" "$SRC/tests/trace-check.py" "$TMP/w.json"
# --steps: the selected steps only, from their first line
expect_exit 0 "$BUILD/rt-trace" "$SRC/fixtures/hand-v2" -o "$TMP/s.json" --steps 2 --no-cache --json
expect_grep '"requests": 1,' "$TMP/out" "rt-trace --steps 2"
trace_counts "$TMP/s.json" >"$TMP/s.counts"
expect_grep '"first_ts": 0' "$TMP/s.counts" "rt-trace --steps 2 starts at 0"
# a worker that no file has: exit 1, the JSON still printed, no file
expect_exit 1 "$BUILD/rt-trace" "$SRC/fixtures/hand-v2" -o "$TMP/none.json" --worker 7 --no-cache --json
expect_grep '"file": null' "$TMP/out" "rt-trace --worker 7"
[ -e "$TMP/none.json" ] && fail "rt-trace --worker 7 wrote a file" || ok
expect_exit 2 "$BUILD/rt-trace" "$SRC/fixtures/hand-v2" -o "$TMP/bad.json" --worker x --no-cache
expect_grep "worker: cannot read 'x'" "$TMP/err" "rt-trace --worker x"
# -o inside the experiment: refused before anything is written
cp -r "$SRC/fixtures/hand-v2" "$TMP/exp"
state=$(tree_state "$TMP/exp")
expect_exit 2 "$BUILD/rt-trace" "$TMP/exp" -o "$TMP/exp/step_1/t.json" --no-cache
expect_grep "inside the experiment" "$TMP/err" "rt-trace -o inside EXP"
expect_tree_unchanged <(echo "$state") "$TMP/exp" "rt-trace -o inside EXP"
# a folder as -o gets trace.json; by default rt-out/EXPNAME/trace.json in the working folder
expect_exit 0 "$BUILD/rt-trace" "$TMP/exp" -o "$TMP/folder" --no-cache
[ -s "$TMP/folder/trace.json" ] && ok || fail "rt-trace -o FOLDER wrote no FOLDER/trace.json"
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$BUILD/rt-trace" "$TMP/exp" --no-cache --quiet) && ok || fail "rt-trace with the default output"
[ -s "$TMP/cwd/rt-out/exp/trace.json" ] && ok || fail "rt-trace wrote no rt-out/exp/trace.json"
# an unwritable folder: exit 1, nothing left behind
mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
  expect_exit 1 "$BUILD/rt-trace" "$TMP/exp" -o "$TMP/ro/t.json" --no-cache
  expect_no_temps "$TMP/ro" "rt-trace into a read-only folder"
fi
chmod 755 "$TMP/ro"
# the help says the times are relative
expect_exit 0 "$BUILD/rt-trace" --help
expect_grep "not wall-clock" "$TMP/out" "rt-trace --help"
finish
