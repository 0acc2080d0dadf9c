#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-tail.sh: rt-tail on fixtures/tail, every figure worked by hand in fixtures/README.md; the
# identities of the split on a generated experiment; --step; a step without a request.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$BUILD/rt-tail" "$SRC/fixtures/tail" --json --no-cache --no-render --out "$TMP/plots"; cp "$TMP/out" "$TMP/tail.json"
"$PYTHON" - "$TMP/tail.json" <<'PY' && ok || fail "rt-tail's figures on fixtures/tail are not the hand-worked ones"
import json, sys
d = json.load(open(sys.argv[1]))
s1, s2 = d["steps"]
def near(a, b): return a is not None and abs(a - b) < 1e-9
# step 1 (fixtures/README.md): t0 1, t90 6, t100 19, window 18, tail 13, bubble 13/36
for k, v in {"t0_s": 1, "t90_s": 6, "t100_s": 19, "window_s": 18, "tail_s": 13,
             "tail_window_share": 13 / 18, "bubble": 13 / 36}.items():
    assert near(s1[k], v), (k, s1[k])
assert (s1["requests"], s1["workers"], s1["attributed"], s1["unattributed"]) == (10, 2, 10, 0)
assert s1["bulk"]["requests"] == 9 and s1["tail"]["requests"] == 1
bulk = {"lateness": 5, "launch": 0, "duration": 5, "engine": 4, "tool": 0, "other": 1, "turns": 2,
        "engine_per_turn": 2}
for k, v in bulk.items():
    assert near(s1["bulk"]["mean"][k], v), k
tail = {"lateness": 18, "launch": 2, "duration": 16, "engine": 12, "tool": 2, "other": 2}
for k, v in tail.items():
    assert near(s1["tail"]["sum"][k], v), k
excess = {"lateness": 13, "launch": 2, "duration": 11, "engine": 8, "tool": 2, "other": 1,
          "extra_turns": 5, "slower_turns": 3}
for k, v in excess.items():
    assert near(s1["tail"]["excess"][k], v), k
    assert near(s1["last"]["excess"][k], v), k
assert s1["tail"]["dominant"] == "extra_turns" and s1["last"]["dominant"] == "extra_turns"
last = s1["last"]
assert (last["worker"], last["request_id"]) == (1, "b4") and near(last["end_s"], 19)
assert near(last["components"]["turns"], 4) and near(last["components"]["engine_per_turn"], 3)
# step 2: b4's id on two complete lines: no own lines, no split
assert (s2["attributed"], s2["unattributed"]) == (8, 2)
for part in ("engine", "tool", "other", "turns", "engine_per_turn"):
    assert s2["bulk"]["mean"][part] is None and s2["last"]["components"][part] is None
for part in ("engine", "tool", "other", "extra_turns", "slower_turns"):
    assert s2["tail"]["excess"][part] is None
assert near(s2["tail"]["excess"]["launch"], 2) and near(s2["tail"]["excess"]["duration"], 11)
assert s2["tail"]["dominant"] == "duration" and s2["last"]["dominant"] == "duration"
counts = {"launch": 0, "extra_turns": 1, "slower_turns": 0, "tool": 0, "other": 0, "duration": 1, "none": 0}
assert d["summary"] == {"steps": 2, "attributed_steps": 1, "tail_dominant": counts, "last_dominant": counts}
PY

# the identities, on every attributed step of a generated experiment: lateness = launch + duration,
# duration = engine + tool + other, engine = extra_turns + slower_turns, for sums and excesses
"$BUILD/rt-synth" "$TMP/exp" --steps 4 --workers 3 --requests 30 --seed 5 --quiet || fail "rt-synth"
expect_exit 0 "$BUILD/rt-tail" "$TMP/exp" --json --no-cache --no-render --out "$TMP/plots2"; cp "$TMP/out" "$TMP/synth.json"
"$PYTHON" - "$TMP/synth.json" <<'PY' && ok || fail "the components do not sum to the totals"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["steps"] and all(s["unattributed"] == 0 for s in d["steps"])
def close(a, b): return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
for s in d["steps"]:
    for x in (s["tail"]["sum"], s["tail"]["excess"], s["last"]["components"], s["last"]["excess"]):
        assert close(x["lateness"], x["launch"] + x["duration"])
        assert close(x["duration"], x["engine"] + x["tool"] + x["other"])
    for x in (s["tail"]["excess"], s["last"]["excess"]):
        assert close(x["engine"], x["extra_turns"] + x["slower_turns"])
    assert s["tail"]["requests"] + s["bulk"]["requests"] == s["requests"]
PY

# --step as rt-timeline: one step; a step the trace lacks: exit 1
expect_exit 0 "$BUILD/rt-tail" "$SRC/fixtures/tail" --step 2 --json --no-cache --no-render --out "$TMP/plots3"; cp "$TMP/out" "$TMP/one.json"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [s["step"] for s in d["steps"]] == [2]' \
  "$TMP/one.json" && ok || fail "--step 2 is not step 2 alone"
expect_exit 1 "$BUILD/rt-tail" "$SRC/fixtures/tail" --step 9 --no-cache --no-render --out "$TMP/plots4"
# the older logger: no attribution, launch and duration only
expect_exit 0 "$BUILD/rt-tail" "$SRC/fixtures/hand-v1" --json --no-cache --no-render --out "$TMP/plots5"; cp "$TMP/out" "$TMP/v1.json"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["attributed_steps"] == 0
assert all(s["last"]["components"]["engine"] is None for s in d["steps"])' "$TMP/v1.json" \
  && ok || fail "the older logger's requests are attributed"
finish
