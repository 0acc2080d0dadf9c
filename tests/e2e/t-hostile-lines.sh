#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-lines.sh: hostile input, classes 7 and 10 of issue 10: two JSON objects glued on one
# line are both read (or the line is reported), and --json always prints one valid UTF-8 document.
. "$(dirname "$0")/lib.sh"

"$BUILD/rt-synth" "$TMP/base" --steps 2 --workers 2 --requests 4 --seed 9 --quiet || fail "rt-synth"
ALL=$EXP_ANALYZERS
args () { case $1 in rt-check) ;; *) echo "--out $TMP/o --no-render" ;; esac; }

# --- class 7: {...}{...} on one line ---------------------------------------------------------
# glue EXP HOW: joins, in EXP/step_1/worker_0.jsonl, a request's completion to the line before
# it (HOW=whole), or cuts a second object off after the line before it (HOW=cut); prints the
# number of the line that holds the glue
glue () {
  "$PYTHON" - "$1/step_1/worker_0.jsonl" "$2" <<'PY'
import sys
path, how = sys.argv[1], sys.argv[2]
lines = open(path).read().split("\n")
i = next(k for k, l in enumerate(lines) if k > 0 and '"async_rollout_request_complete"' in l)
if how == "whole":
    lines[i - 1:i + 1] = [lines[i - 1] + lines[i]]
else:
    lines[i - 1] += '{"eve'
open(path, "w").write("\n".join(lines))
print(i)
PY
}
cp -r "$TMP/base" "$TMP/glued"
n=$(glue "$TMP/glued" whole)
cp -r "$TMP/base" "$TMP/cut"
m=$(glue "$TMP/cut" cut)
glued_state=$(tree_state "$TMP/glued")
cut_state=$(tree_state "$TMP/cut")
expect_safe 0 "$BUILD/rt-check" "$TMP/base" --json --no-cache
cp "$TMP/out" "$TMP/base-check.json"
for run in --no-cache first-cache second-cache; do
  case $run in
    --no-cache) cache=(--no-cache) cache_cut=(--no-cache) ;;
    *) cache=(--cache-dir "$TMP/c") cache_cut=(--cache-dir "$TMP/c-cut") ;;
  esac
  expect_safe 0 "$BUILD/rt-check" "$TMP/glued" --json "${cache[@]}"
  "$PYTHON" - "$TMP/out" "$TMP/base-check.json" "step_1/worker_0.jsonl:$n" <<'PY' && ok || fail "rt-check on two glued objects ($run)"
import json, sys
got, base = (json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:3])
where = sys.argv[3]
errors = []
if got.get("events") != base["events"]:
    errors.append(f"events: {got.get('events')}, expected {base['events']} (both objects)")
if got.get("requests") != base["requests"]:
    errors.append(f"requests: {got.get('requests')}, expected {base['requests']}")
if got.get("glued_lines") != 1:
    errors.append(f"glued_lines: {got.get('glued_lines')!r}, expected 1")
if not any(p.get("where") == where and p.get("reason", "").startswith("2 JSON objects on one line")
           for p in got.get("problems", [])):
    errors.append(f"no problem at {where} with reason '2 JSON objects on one line...' in {got.get('problems')}")
for e in errors:
    print("   ", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
  expect_safe 0 "$BUILD/rt-check" "$TMP/cut" --json "${cache_cut[@]}"
  "$PYTHON" - "$TMP/out" "$TMP/base-check.json" "step_1/worker_0.jsonl:$m" <<'PY' && ok || fail "rt-check on an object with a cut-off one glued to it ($run)"
import json, sys
got, base = (json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:3])
where = sys.argv[3]
errors = []
if got.get("events") != base["events"]:
    errors.append(f"events: {got.get('events')}, expected {base['events']} (the first object is read)")
if not any(p.get("where") == where and p.get("reason") for p in got.get("problems", [])):
    errors.append(f"no problem listed at {where}: {got.get('problems')}")
for e in errors:
    print("   ", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
done
# the glued request counts in every answer, as if its newline were there
for q in "rt-cdf" "rt-requests --step 1 --top 50" "rt-turn-dist" "rt-workers --step 1"; do
  cmd=${q%% *}; read -r -a extra <<<"${q#"$cmd"}"
  expect_safe 0 "$BUILD/$cmd" "$TMP/base" "${extra[@]}" --json --no-cache --out "$TMP/o" --no-render
  cp "$TMP/out" "$TMP/want.json"
  for exp in glued cut; do
    for run in --no-cache cache; do
      case $run in --no-cache) cache=(--no-cache) ;; *) cache=(--cache-dir "$TMP/c-$exp") ;; esac
      expect_safe 0 "$BUILD/$cmd" "$TMP/$exp" "${extra[@]}" --json "${cache[@]}" --out "$TMP/o" --no-render
      expect_same_answer "$TMP/want.json" "$TMP/out" "$q on the $exp line ($run)"
    done
  done
done
expect_tree_unchanged <(echo "$glued_state") "$TMP/glued" "the experiment with a glued line"
expect_tree_unchanged <(echo "$cut_state") "$TMP/cut" "the experiment with a cut glued object"

# --- class 10: --json is one valid UTF-8 document, whatever the input -----------------------
# file names that are not UTF-8, beside the steps and in a step folder
cp -r "$TMP/base" "$TMP/names"
: >"$TMP/names/bad"$'\xff\xfe'".txt"
: >"$TMP/names/step_1/bad"$'\xff\xfe'".txt"
mkdir "$TMP/names/step_"$'\xe9'
for cmd in $ALL; do
  # shellcheck disable=SC2046
  expect_safe 0 "$BUILD/$cmd" "$TMP/names" $(args "$cmd") --json --no-cache
  expect_json_doc "$TMP/out" "$cmd --json beside file names that are not UTF-8"
done
expect_safe 0 "$BUILD/rt-check" "$TMP/names" --json --no-cache
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "rt-check --json strays of names that are not UTF-8"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
strays = doc.get("strays", [])
want = [("bad", ".txt"), ("step_1/bad", ".txt"), ("step_", "")]
missing = [w for w in want if not any(s.startswith(w[0]) and s.endswith(w[1]) and "\ufffd" in s for s in strays)]
if missing:
    print(f"    no stray like {missing} with U+FFFD for the invalid bytes in {strays}", file=sys.stderr)
    sys.exit(1)
PY

# event names, finish reasons and request ids with invalid bytes: raw, and as lone surrogates
cp -r "$TMP/base" "$TMP/bytes"
"$PYTHON" - "$TMP/bytes/step_1/worker_1.jsonl" <<'PY'
import json, sys
path = sys.argv[1]
lines = open(path, "rb").read().split(b"\n")
out, k = [], 0
for line in lines:
    if b'"async_rollout_request_complete"' in line and k < 4:
        d = json.loads(line)
        rid = d["extra"]["request_id"]
        if k % 2 == 0:   # raw bytes that are not UTF-8
            line = line.replace(b'"FinishReasonTypeEnum.', b'"Finish\xff\xfeReason.')
            line = line.replace(rid.encode(), b"id\xc3\x28" + rid[:8].encode())
        else:            # escapes of lone surrogates: no character at all
            line = line.replace(b'"FinishReasonTypeEnum.', b'"Finish\\udc80Reason.')
            line = line.replace(rid.encode(), b"id\\ud800" + rid[:8].encode())
        k += 1
    out.append(line)
ts = b'"timestamp": "2025-06-10T09:00:01", '
out[-1:] = [b'{' + ts + b'"event": "sect\xe9\x80ion", "duration_sec": 0.5, "workid": 1, "step": 1}',
            b'{' + ts + b'"event": "sect\\udfffion", "duration_sec": 0.5, "workid": 1, "step": 1}', out[-1]]
open(path, "wb").write(b"\n".join(out))
PY
analyzer_queries "rt-check=" "rt-check=--verbose" "rt-workers=" "rt-workers=--step 1" "rt-requests=--step 1 --top 50"
for q in "${QUERIES[@]}"; do
  cmd=${q%% *}; read -r -a extra <<<"${q#"$cmd"}"
  for run in --no-cache first-cache second-cache; do
    case $run in --no-cache) cache=(--no-cache) ;; *) cache=(--cache-dir "$TMP/c-bytes") ;; esac
    # shellcheck disable=SC2046
    expect_safe 0 "$BUILD/$cmd" "$TMP/bytes" "${extra[@]}" $(args "$cmd") --json "${cache[@]}"
    expect_json_doc "$TMP/out" "$q --json on texts with invalid bytes ($run)"
  done
done

# trainer-log metric names with invalid bytes
printf 'step:1 - timing_s/step:90 - bad\xff\xfename:1.5 - cut\xe9:2 - ok:3\nstep:2 - timing_s/step:91 - bad\xff\xfename:1.25 - cut\xe9:2 - ok:4\n' >"$TMP/bytes.log"
expect_safe 0 "$BUILD/rt-train" "$TMP/bytes.log" --json --out "$TMP/o-train" --no-render
expect_json_doc "$TMP/out" "rt-train --json on metric names with invalid bytes"
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "rt-train --json: invalid bytes of metric names as U+FFFD"
import json, sys
metrics = json.loads(open(sys.argv[1], "rb").read().decode("utf-8")).get("metrics", {})
for prefix in ("bad", "cut"):
    if not any(k.startswith(prefix) and "\ufffd" in k for k in metrics):
        print(f"    no metric {prefix}... with U+FFFD in {list(metrics)}", file=sys.stderr)
        sys.exit(1)
PY

# an experiment whose step folders are all empty: exit 1, and still one JSON document
mkdir -p "$TMP/empty/step_1" "$TMP/empty/step_2"
for cmd in $ALL; do
  case $cmd in rt-requests | rt-cdf | rt-workers) codes=1 ;; *) codes="0 1" ;; esac
  # shellcheck disable=SC2046
  expect_safe "$codes" "$BUILD/$cmd" "$TMP/empty" $(args "$cmd") --json --no-cache
  expect_json_doc "$TMP/out" "$cmd --json on empty step folders (exit $STATUS)"
done
finish
