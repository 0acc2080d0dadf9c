#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-names.sh: hostile input, class 3 of issue 10: 70,000 distinct event names never
# overflow the event table; the names past the first 1024 share one, and rt-check says so.
. "$(dirname "$0")/lib.sh"

"$BUILD/rt-synth" "$TMP/base" --steps 2 --workers 2 --requests 4 --seed 3 --quiet || fail "rt-synth"

# args CMD: the options a command runs with here (no rendering, --out outside the experiment)
args () { case $1 in rt-check) ;; *) echo "--out $TMP/o --no-render" ;; esac; }

# --- class 3: more than 1024 (and 65,535) distinct event names ----------------------------------
# 70,000 names, one line each, all carrying the id of one request of step 1: that request's
# phases are where a name past the table's end used to index (SIGSEGV, heap corruption)
cp -r "$TMP/base" "$TMP/names"
"$PYTHON" - "$TMP/names/step_1/worker_0.jsonl" <<'PY'
import json, sys
path = sys.argv[1]
lines = open(path).read().splitlines(keepends=True)
last = json.loads(lines[-1])        # the step's total_step_duration stays last
rid = next(json.loads(l)["extra"]["request_id"] for l in lines if '"async_rollout_request_complete"' in l)
extra = [json.dumps({"timestamp": last["timestamp"], "event": f"custom_section_{k:05d}",
                     "duration_sec": 0.001, "extra": {"request_id": rid}, "workid": 0, "step": 1}) + "\n"
         for k in range(70000)]
open(path, "w").writelines(lines[:-1] + extra + lines[-1:])
PY
state=$(tree_state "$TMP/names")
analyzer_queries "rt-cdf=" "rt-cdf=--event turn_engine_call --event total_step_duration" "rt-workers=" \
  "rt-workers=--step 1" "rt-requests=" "rt-requests=--step 1 --top 50"
for q in "${QUERIES[@]}"; do
  cmd=${q%% *}; read -r -a extra <<<"${q#"$cmd"}"
  # shellcheck disable=SC2046
  timeout 60 "$BUILD/$cmd" "$TMP/base" "${extra[@]}" $(args "$cmd") --json --no-cache >"$TMP/want.json" 2>/dev/null
  want=$?                                    # what the tree without the extra names gives
  [ "$want" -le 1 ] || { fail "$q on the tree without extra names exits $want"; want=0; }
  for run in --no-cache first-cache second-cache; do
    case $run in --no-cache) cache=(--no-cache) ;; *) cache=(--cache-dir "$TMP/c-names") ;; esac
    # shellcheck disable=SC2046
    expect_safe "$want" "$BUILD/$cmd" "$TMP/names" "${extra[@]}" $(args "$cmd") --json "${cache[@]}"
    # the answers about the known events are those of the tree without the extra names
    case $cmd in rt-cdf | rt-requests) ;; *) continue ;; esac
    "$PYTHON" - "$TMP/want.json" "$TMP/out" <<'PY' >"$TMP/diff" 2>&1 && ok || { fail "$q with 70,000 more event names ($run):"; head -5 "$TMP/diff" >&2; }
import json, sys
want, got = (json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:])
for doc in (want, got):
    doc.pop("cache", None)
# a request's phases may name the new events (or their shared name); the known ones must not move
for w, g in zip(want.get("slowest", []), got.get("slowest", [])):
    if isinstance(g.get("phases"), dict) and isinstance(w.get("phases"), dict):
        g["phases"] = {k: v for k, v in g["phases"].items() if k in w["phases"]}
for key in sorted(set(want) | set(got)):
    if want.get(key) != got.get(key):
        print(f"    {key}: {json.dumps(got.get(key))[:200]}\n    expected {json.dumps(want.get(key))[:200]}")
sys.exit(want != got)
PY
  done
done
# rt-check counts the events past the first 1024 names under one name, and says so
for run in --no-cache first-cache second-cache; do
  case $run in --no-cache) cache=(--no-cache) ;; *) cache=(--cache-dir "$TMP/c-check") ;; esac
  expect_safe 0 "$BUILD/rt-check" "$TMP/names" --json "${cache[@]}"
  "$PYTHON" - "$TMP/out" <<'PY' && ok || fail "rt-check --json other_name_events ($run)"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
n = doc.get("other_name_events")
# 70,000 new names; at most 1024 names in all have their own id (the logger's own names may
# take some of them), so between 68,976 and a few hundred more have to share one
if not isinstance(n, int) or not 70000 - 1024 <= n <= 70000 - 1024 + 256:
    print(f"    other_name_events: {n!r}, expected about {70000 - 1024}", file=sys.stderr)
    sys.exit(1)
PY
done
expect_safe 0 "$BUILD/rt-check" "$TMP/names" --no-cache
expect_grep "(other event names)" "$TMP/out" "rt-check's summary of 70,000 event names"
expect_tree_unchanged <(echo "$state") "$TMP/names" "the experiment with 70,000 event names"
expect_only_rtc "$TMP/c-names" "the cache of 70,000 event names"

finish
