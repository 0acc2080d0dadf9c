#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-synth.sh: rt-synth is deterministic and writes what docs/input.md describes, damage included;
# rt-check and rt-cdf agree with a plain Python reading of the definitions on what it writes.
. "$(dirname "$0")/lib.sh"

synth="$BUILD/rt-synth"
expect_exit 0 "$synth" "$TMP/a" --steps 4 --workers 3 --requests 20 --seed 11 --faults --quiet
expect_exit 0 "$synth" "$TMP/b" --steps 4 --workers 3 --requests 20 --seed 11 --faults --quiet
diff -r "$TMP/a" "$TMP/b" >/dev/null && ok || fail "the same seed wrote different experiments"
expect_exit 0 "$synth" "$TMP/c" --steps 4 --workers 3 --requests 20 --seed 12 --faults --quiet
diff -r "$TMP/a" "$TMP/c" >/dev/null && fail "different seeds wrote the same experiment" || ok
expect_exit 2 "$synth" "$TMP/a" --steps 1 --workers 1 --requests 1 --seed 1   # OUT not empty
expect_exit 2 "$synth" "$TMP/d" --schema v3

# the damaged experiment, read by the loader and by the oracle
expect_exit 0 "$BUILD/rt-check" "$TMP/a" --json
cp "$TMP/out" "$TMP/check.json"
python3 "$SRC/tests/oracle.py" check "$TMP/a" >"$TMP/oracle-check.json" && ok || fail "oracle check"
expect_json "$TMP/oracle-check.json" "$TMP/check.json" "rt-check on a --faults experiment"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['bad_lines'] >= 5 and d['missing'] else 1)" \
  "$TMP/check.json" && ok || fail "--faults wrote no bad lines or no missing file"

expect_exit 0 "$BUILD/rt-cdf" "$TMP/a" --json --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/cdf.json"
python3 "$SRC/tests/oracle.py" cdf "$TMP/a" >"$TMP/oracle-cdf.json" && ok || fail "oracle cdf"
expect_json "$TMP/oracle-cdf.json" "$TMP/cdf.json" "rt-cdf on a --faults experiment"

# every analyzer runs on it
analyzer_queries "rt-workers=" "rt-workers=--step 2"
for q in "${QUERIES[@]}"; do
  a=${q%% *}; read -r -a extra <<<"${q#"$a"}"
  [ "$a" = rt-check ] || extra+=(--out "$TMP/o" --no-render)
  expect_exit 0 "$BUILD/$a" "$TMP/a" "${extra[@]}" --quiet
done

# the trainer's console log of the same run: deterministic, one metric line per step, and its
# timings agree with the trace (timing_s/step spans a step's rollout and the training after it)
expect_exit 0 "$synth" "$TMP/t1" --steps 4 --workers 3 --requests 6 --seed 5 --quiet --console-log "$TMP/t1.log"
expect_exit 0 "$synth" "$TMP/t2" --steps 4 --workers 3 --requests 6 --seed 5 --quiet --console-log "$TMP/t2.log"
cmp -s "$TMP/t1.log" "$TMP/t2.log" && ok || fail "the same seed wrote different console logs"
expect_exit 0 "$BUILD/rt-train" "$TMP/t1.log" --json --out "$TMP/o" --no-render
expect_grep '"steps": 4' "$TMP/out" "rt-train on rt-synth's console log"
expect_exit 0 "$BUILD/rt-overview" "$TMP/t1" --train "$TMP/t1.log" --json --out "$TMP/o" --no-render
python3 - "$TMP/out" <<'PY' && ok || fail "the console log's timings do not match the trace"
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
for s in steps[:-1]:   # the last step has no next one to measure its interval against
    assert abs(s["train_gen_s"] - s["rollout_s"]) < 0.05 * s["rollout_s"], s
    assert abs(s["train_step_s"] - s["interval_s"]) < 0.05 * s["interval_s"], s
PY

# a tool call runs between the turn that asked for it and the next one, and the newer logger
# numbers it with the next turn (docs/input.md): tool_* with turn n lie between turn n-1's turn_end
# and turn n's turn_start; the older logger writes the tool lines without extra
expect_exit 0 "$synth" "$TMP/tools" --steps 2 --workers 2 --requests 30 --seed 4 --quiet
expect_exit 0 "$synth" "$TMP/tools-v1" --steps 2 --workers 2 --requests 30 --seed 4 --schema v1 --quiet
python3 - "$TMP/tools" "$TMP/tools-v1" <<'PY' && ok || fail "tool lines are not numbered and placed as the loggers do"
import datetime, glob, json, sys
def t(s):
    return datetime.datetime.fromisoformat(s).timestamp()
tools = ("tool_execution", "tool_response_processing", "tool_calling_state")
n = 0
for path in glob.glob(sys.argv[1] + "/step_*/worker_*.jsonl"):
    ends, starts, calls = {}, {}, []
    for line in open(path):
        d = json.loads(line)
        x = d.get("extra", {})
        if d["event"] == "turn_end":
            ends[x["request_id"], x["turn"]] = t(d["timestamp"])
        elif d["event"] == "turn_start":
            starts[x["request_id"], x["turn"]] = t(d["timestamp"])
        elif d["event"] in tools:
            calls.append((x["request_id"], x["turn"], t(d["timestamp"]) - d["duration_sec"], t(d["timestamp"])))
    for rid, turn, begin, end in calls:
        assert turn >= 1 and ends[rid, turn - 1] <= begin + 1e-6 and end <= starts[rid, turn] + 1e-6, (path, rid, turn)
        n += 1
assert n > 30, n
v1 = [json.loads(l) for p in glob.glob(sys.argv[2] + "/step_*/worker_*.jsonl") for l in open(p)]
v1_tools = [d for d in v1 if d["event"] in tools]
assert len(v1_tools) > 30 and all("extra" not in d for d in v1_tools), len(v1_tools)
PY

# older logger, and an experiment that mixes both
expect_exit 0 "$synth" "$TMP/v1" --steps 2 --workers 2 --requests 5 --seed 3 --schema v1 --quiet
expect_exit 0 "$BUILD/rt-check" "$TMP/v1" --json
expect_grep '"schema": "v1"' "$TMP/out" "rt-check on a v1 experiment"
expect_exit 0 "$synth" "$TMP/v2" --steps 2 --workers 2 --requests 5 --seed 3 --first-step 3 --quiet
mv "$TMP/v2"/step_* "$TMP/v1"/
expect_exit 0 "$BUILD/rt-check" "$TMP/v1" --json
expect_grep '"schema": "mixed"' "$TMP/out" "rt-check on a mixed experiment"
cp "$TMP/out" "$TMP/mixed.json"
python3 "$SRC/tests/oracle.py" check "$TMP/v1" >"$TMP/oracle-mixed.json"
expect_json "$TMP/oracle-mixed.json" "$TMP/mixed.json" "rt-check on a mixed experiment"
finish
