#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-sizes.sh: hostile input, classes 4 and 5 of issue 10: values from a trace never size
# an allocation: absurd turn counts, gigabytes without a newline. (Class 3: t-hostile-names.sh.)
. "$(dirname "$0")/lib.sh"

ALL=$EXP_ANALYZERS
"$BUILD/rt-synth" "$TMP/base" --steps 2 --workers 2 --requests 4 --seed 3 --quiet || fail "rt-synth"

# args CMD: the options a command runs with here (no rendering, --out outside the experiment)
args () { case $1 in rt-check) ;; *) echo "--out $TMP/o --no-render" ;; esac; }

# --- class 4: absurd numbers of turns -------------------------------------------------------
cp -r "$TMP/base" "$TMP/turns"
"$PYTHON" - "$TMP/turns/step_1/worker_1.jsonl" <<'PY'
import json, sys
path = sys.argv[1]
lines = open(path).read().splitlines(keepends=True)
values = ["2000000000", "2147483647", "1e300"]
out = []
for line in lines:
    d = json.loads(line)
    if d["event"] == "async_rollout_request_complete" and values:
        d["extra"]["turns"] = "@TURNS@"
        line = json.dumps(d).replace('"@TURNS@"', values.pop(0)) + "\n"
    out.append(line)
assert not values, "fewer than 3 requests in the file"
open(path, "w").writelines(out)
PY
state=$(tree_state "$TMP/turns")
expect_bounded 0 "$BUILD/rt-turn-dist" "$TMP/turns" --json --no-cache --out "$TMP/o" --no-render
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "rt-turn-dist --json bins of absurd turn counts"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
bins = {b["turns"]: b["count"] for b in doc["all"]}
errors = []
for t in (2000000000, 2147483647):
    if bins.get(t) != 1:
        errors.append(f"no bin {{turns: {t}, count: 1}}")
too_big = [t for t in bins if not isinstance(t, int) or t > 2147483647]
if too_big:
    errors.append(f"bins out of range (1e300 is an unknown number of turns): {too_big}")
step1 = {b["turns"]: b["count"] for s in doc["steps"] if s["step"] == 1 for b in s["by_turns"]}
if step1.get(2000000000) != 1:
    errors.append("step 1 has no bin of 2000000000 turns")
for e in errors:
    print("   ", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
for cmd in $ALL; do
  # shellcheck disable=SC2046
  expect_bounded 0 "$BUILD/$cmd" "$TMP/turns" $(args "$cmd") --cache-dir "$TMP/c-turns"
done
expect_tree_unchanged <(echo "$state") "$TMP/turns" "the experiment with absurd turn counts"

# --- class 5: lines longer than 64 MiB ------------------------------------------------------
# 3 GiB of NUL bytes without a newline, as a crash leaves them (sparse: no disk space). Under
# ASan, three times slower, 200 MiB: still far past the 64 MiB line limit.
if is_asan; then big=200M; else big=3G; fi
cp -r "$TMP/base" "$TMP/nul"
truncate -s 0 "$TMP/nul/step_1/worker_0.jsonl"
truncate -s "$big" "$TMP/nul/step_1/worker_0.jsonl"
state=$(tree_state "$TMP/nul")
expect_bounded 0 "$BUILD/rt-check" "$TMP/nul" --json --no-cache
cp "$TMP/out" "$TMP/nul.json"
# the same tree with that file empty: the other files' answers are unchanged
cp -r "$TMP/base" "$TMP/nul-empty"
: >"$TMP/nul-empty/step_1/worker_0.jsonl"
expect_safe 0 "$BUILD/rt-check" "$TMP/nul-empty" --json --no-cache
"$PYTHON" - "$TMP/nul.json" "$TMP/out" <<'PY' && ok || fail "rt-check on $big of NUL bytes without a newline"
import json, sys
got, want = (json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:])
errors = []
problem = {"where": "step_1/worker_0.jsonl:1", "reason": "line longer than 64 MiB (skipped unread)"}
if problem not in got.get("problems", []):
    errors.append(f"no problem {problem} in {got.get('problems')}")
for key in ("events", "requests", "steps", "workers"):
    if got.get(key) != want.get(key):
        errors.append(f"{key}: {got.get(key)}, {want.get(key)} with that file empty")
for e in errors:
    print("   ", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
expect_tree_unchanged <(echo "$state") "$TMP/nul" "the experiment with $big of NUL bytes"

# one 70 MiB line, then the file's good lines: those are still read
cp -r "$TMP/base" "$TMP/long"
{
  printf '{"timestamp": "2025-06-10T09:00:01", "event": "preprocessing_duration", "duration_sec": 1.0, "pad": "'
  head -c $((70 << 20)) /dev/zero | tr '\0' 'a'
  printf '"}\n'
  cat "$TMP/base/step_1/worker_0.jsonl"
} >"$TMP/long/step_1/worker_0.jsonl"
state=$(tree_state "$TMP/long")
expect_bounded 0 "$BUILD/rt-check" "$TMP/long" --json --no-cache
cp "$TMP/out" "$TMP/long.json"
expect_safe 0 "$BUILD/rt-check" "$TMP/base" --json --no-cache
"$PYTHON" - "$TMP/long.json" "$TMP/out" <<'PY' && ok || fail "rt-check on a 70 MiB line followed by good lines"
import json, sys
got, want = (json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:])
errors = []
problem = {"where": "step_1/worker_0.jsonl:1", "reason": "line longer than 64 MiB (skipped unread)"}
if problem not in got.get("problems", []):
    errors.append(f"no problem {problem} in {got.get('problems')}")
for key in ("events", "requests"):
    if got.get(key) != want.get(key):
        errors.append(f"{key}: {got.get(key)}, {want.get(key)} without the long line")
if got.get("bad_lines") != want.get("bad_lines", 0) + 1:
    errors.append(f"bad_lines: {got.get('bad_lines')}, expected {want.get('bad_lines', 0) + 1}")
for e in errors:
    print("   ", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
expect_safe 0 "$BUILD/rt-cdf" "$TMP/base" --json --no-cache --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/want.json"
expect_bounded 0 "$BUILD/rt-cdf" "$TMP/long" --json --cache-dir "$TMP/c-long" --out "$TMP/o" --no-render
expect_same_answer "$TMP/want.json" "$TMP/out" "rt-cdf after a 70 MiB line"
expect_bounded 0 "$BUILD/rt-cdf" "$TMP/long" --json --cache-dir "$TMP/c-long" --out "$TMP/o" --no-render
expect_same_answer "$TMP/want.json" "$TMP/out" "rt-cdf after a 70 MiB line, from the cache"
expect_only_rtc "$TMP/c-long" "the cache of the experiment with a 70 MiB line"
expect_tree_unchanged <(echo "$state") "$TMP/long" "the experiment with a 70 MiB line"

# (a trainer log of 3 GiB of NUL bytes without a newline, rt-train's: t-train.sh)
finish
