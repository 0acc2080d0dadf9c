#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-paths.sh: hostile input, classes 2, 8 and 12 of issue 10: --out reaching into the
# experiment through links, two spellings of one step or worker, hostile command lines.
. "$(dirname "$0")/lib.sh"

# the analyzers that write into --out: every one the build lists for experiments but rt-check
ANALYZERS=${EXP_ANALYZERS/rt-check /}
"$BUILD/rt-synth" "$TMP/exp" --steps 2 --workers 3 --requests 4 --seed 1 --quiet || fail "rt-synth"
mkdir -p "$TMP/exp/step_1/sub"
state=$(tree_state "$TMP/exp")
cp -a "$TMP/exp" "$TMP/pristine"
restore () { rm -rf "$TMP/exp" && cp -a "$TMP/pristine" "$TMP/exp"; }   # undo what a failure wrote

# --- class 2: --out inside EXP, however it is spelled -----------------------------------------
ln -s "$TMP/exp" "$TMP/link-exp"                 # a link to EXP
ln -s "$TMP/exp/step_1/sub" "$TMP/link-sub"      # a link to a folder inside EXP
mkdir -p "$TMP/elsewhere"
inside () {   # inside EXP OUT: every analyzer refuses OUT, exit 2, and writes nothing into EXP
  local cmd
  for cmd in $ANALYZERS; do
    expect_safe 2 "$BUILD/$cmd" "$1" --out "$2" --no-render --no-cache
    expect_grep "inside the experiment" "$TMP/err" "$cmd $1 --out $2"
  done
  expect_tree_unchanged <(echo "$state") "$TMP/exp" "--out $2 for EXP $1"
  restore
}
inside "$TMP/exp" "$TMP/link-exp"
inside "$TMP/exp" "$TMP/link-sub"
inside "$TMP/exp" "$TMP/link-exp/plots"          # a folder still to be made, behind a link
inside "$TMP/exp" "$TMP/elsewhere/../exp/plots"
inside "$TMP/link-exp" "$TMP/exp"                # EXP given as a link, --out as its real path
inside "$TMP/link-exp" "$TMP/exp/plots"
inside "$TMP/link-exp" "$TMP/link-sub"
inside "$TMP/exp" "$TMP/link-exp/step_2"         # and the other way round
# beside the experiment is fine, through a link too
ln -s "$TMP/elsewhere" "$TMP/link-elsewhere"
expect_safe 0 "$BUILD/rt-cdf" "$TMP/link-exp" --out "$TMP/link-elsewhere/plots" --no-render --no-cache
[ -s "$TMP/elsewhere/plots/cdf.tsv" ] && ok || fail "rt-cdf --out through a link outside EXP wrote no cdf.tsv"
expect_tree_unchanged <(echo "$state") "$TMP/exp" "--out outside EXP"
restore

# --- class 8: step_01/ beside step_1/, worker_01.jsonl beside worker_1.jsonl -------------------
# A donor experiment gives files of other content; `fix W` makes a donor file's lines say worker W.
"$BUILD/rt-synth" "$TMP/donor" --steps 3 --workers 6 --requests 4 --seed 2 --quiet || fail "rt-synth"
fix () { sed -E "s/\"workid\": [0-9]+/\"workid\": $1/"; }
cp -r "$TMP/exp" "$TMP/dup"
rm -r "$TMP/dup/step_1/sub"
d="$TMP/donor"
mkdir -p "$TMP/dup/step_01" "$TMP/dup/step_03" "$TMP/dup/step_003"
cp "$TMP/exp/step_1/worker_0.jsonl" "$TMP/dup/step_01/worker_0.jsonl"    # the same bytes again
cp "$d/step_1/worker_5.jsonl" "$TMP/dup/step_01/worker_5.jsonl"          # no step_1/worker_5: read
cp "$d/step_1/worker_1.jsonl" "$TMP/dup/step_1/worker_01.jsonl"          # other bytes: not read
cp "$d/step_2/worker_3.jsonl" "$TMP/dup/step_2/worker_03.jsonl"          # shorter: read as worker 3
fix 3 <"$d/step_2/worker_4.jsonl" >"$TMP/dup/step_2/worker_003.jsonl"
cp "$d/step_3/worker_0.jsonl" "$TMP/dup/step_03/worker_0.jsonl"          # shorter: read as step 3
fix 0 <"$d/step_3/worker_1.jsonl" >"$TMP/dup/step_003/worker_0.jsonl"
# the same experiment as it should be read, without the duplicates
cp -r "$TMP/exp" "$TMP/nodup"
rm -r "$TMP/nodup/step_1/sub"
mkdir -p "$TMP/nodup/step_3"
cp "$d/step_1/worker_5.jsonl" "$TMP/nodup/step_1/worker_5.jsonl"
cp "$d/step_2/worker_3.jsonl" "$TMP/nodup/step_2/worker_3.jsonl"
cp "$d/step_3/worker_0.jsonl" "$TMP/nodup/step_3/worker_0.jsonl"
dupstate=$(tree_state "$TMP/dup")

expect_safe 0 "$BUILD/rt-check" "$TMP/dup" --json --no-cache
cp "$TMP/out" "$TMP/dup-check.json"
"$PYTHON" - "$TMP/dup-check.json" <<'PY' && ok || fail "rt-check --json does not list the duplicates as the spec says"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
want = {("step_01/worker_0.jsonl", "step_1/worker_0.jsonl"),
        ("step_1/worker_01.jsonl", "step_1/worker_1.jsonl"),
        ("step_2/worker_003.jsonl", "step_2/worker_03.jsonl"),
        ("step_003/worker_0.jsonl", "step_03/worker_0.jsonl")}
got = {(d.get("path"), d.get("same_as")) for d in doc.get("duplicates", [])}
if got != want:
    print("    duplicates:", sorted(got), "\n    expected:  ", sorted(want), file=sys.stderr)
    sys.exit(1)
PY
expect_safe 0 "$BUILD/rt-check" "$TMP/nodup" --json --no-cache
"$PYTHON" - "$TMP/dup-check.json" "$TMP/out" <<'PY' && ok || fail "rt-check counts differ from the tree without duplicates"
import json, sys
dup, nodup = (json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:])
bad = [k for k in ("steps", "step_min", "step_max", "workers", "events", "requests")
       if dup.get(k) != nodup.get(k)]
for k in bad:
    print(f"    {k}: {dup.get(k)} with duplicates, {nodup.get(k)} without", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# every analyzer answers as on the tree without duplicates, from the JSONL and from a cache
for cmd in $ANALYZERS; do
  args=(--json --out "$TMP/o" --no-render)
  [ "$cmd" = rt-workers ] && args+=(--step 1)
  [ "$cmd" = rt-requests ] && args+=(--step 1 --top 50)
  expect_safe 0 "$BUILD/$cmd" "$TMP/nodup" "${args[@]}" --no-cache
  cp "$TMP/out" "$TMP/want.json"
  expect_safe 0 "$BUILD/$cmd" "$TMP/dup" "${args[@]}" --no-cache
  expect_same_answer "$TMP/want.json" "$TMP/out" "$cmd on step_01/worker_01 duplicates"
  expect_safe 0 "$BUILD/$cmd" "$TMP/dup" "${args[@]}" --cache-dir "$TMP/c"   # writes the cache
  expect_safe 0 "$BUILD/$cmd" "$TMP/dup" "${args[@]}" --cache-dir "$TMP/c"   # reads it
  expect_same_answer "$TMP/want.json" "$TMP/out" "$cmd on duplicates, from the cache"
done
expect_safe 0 "$BUILD/rt-workers" "$TMP/dup" --json --out "$TMP/o" --no-render --no-cache
cp "$TMP/out" "$TMP/got.json"
expect_safe 0 "$BUILD/rt-workers" "$TMP/nodup" --json --out "$TMP/o" --no-render --no-cache
expect_same_answer "$TMP/out" "$TMP/got.json" "rt-workers (every step) on duplicates"
expect_tree_unchanged <(echo "$dupstate") "$TMP/dup" "the experiment with duplicates"
expect_no_temps "$TMP/o" "the analyzers' --out"
expect_only_rtc "$TMP/c" "the cache of the experiment with duplicates"

# --- class 12: the command line -------------------------------------------------------------
expect_safe 2 "$BUILD/rt-check" "$TMP/exp" --steps '' --no-cache
expect_grep "^rt-check: --steps" "$TMP/err" "rt-check --steps ''"
for cmd in $ANALYZERS; do
  expect_safe 2 "$BUILD/$cmd" "$TMP/exp" --steps '' --no-cache --out "$TMP/o" --no-render
  expect_grep "^$cmd: --steps" "$TMP/err" "$cmd --steps ''"
done
cp -r "$TMP/exp" "$TMP/-exp"
rm -r "$TMP/-exp/step_1/sub"
dashstate=$(tree_state "$TMP/-exp")
cd "$TMP" || exit 1
expect_safe 0 "$BUILD/rt-check" --no-cache -- -exp
expect_grep "requests" "$TMP/out" "rt-check -- -exp"
for cmd in $ANALYZERS; do
  expect_safe 0 "$BUILD/$cmd" --no-cache --out "$TMP/o-dash" --no-render -- -exp
done
expect_safe 2 "$BUILD/rt-check" -exp
expect_safe 2 "$BUILD/rt-cdf" -exp --out "$TMP/o-dash2" --no-render
[ ! -e "$TMP/o-dash2" ] && ok || fail "rt-cdf -exp (a usage error) wrote its --out"
expect_tree_unchanged <(echo "$dashstate") "$TMP/-exp" "the experiment named -exp"
finish
