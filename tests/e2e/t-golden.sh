#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-golden.sh: every analyzer, on every fixture and both shared samples, still gives the answer
# it gave before the core was reshaped (issue 11): its --json document, its text summary, its
# exit status, and every TSV file and gnuplot script it writes, byte for byte.
#
# The answers are kept in fixtures/expected/golden/EXP/CASE/ (json, summary.txt, exit, and the
# files of --out). To record them anew after a change that is meant to change an answer:
#   bash tests/e2e/t-golden.sh BUILD SRC --update
# and say in the commit why every changed file changed.
. "$(dirname "$0")/lib.sh"

update=0
[ "${3:-}" = --update ] && update=1
# GOLDEN_CACHED=1 (t-golden-cached.sh): every command answers from a cache that a run before
# it wrote, and must give the same answers; only rt-check's account of the cache differs
cached=${GOLDEN_CACHED:-0}
GOLDEN="$SRC/fixtures/expected/golden"
# rt-report's page says when it was written: the epoch, here, so that it compares byte for byte
export SOURCE_DATE_EPOCH=0

# The experiments, named as their folders: run from SRC with relative paths, so that the
# paths the summaries print are the same on every machine.
experiments=(fixtures/hand-v1 fixtures/hand-v2 fixtures/damaged fixtures/samples/exp-v1
             fixtures/samples/exp-v2-damaged)

# CASE|COMMAND ARGS (EXP is the experiment, and --out, --no-render, --no-cache are added)
cases=(
  "check|rt-check EXP"
  "check-steps|rt-check EXP --steps 2-"
  "cdf|rt-cdf EXP"
  "cdf-events|rt-cdf EXP --event turn_engine_call --event tool_execution --event total_step_duration"
  "cdf-steps|rt-cdf EXP --steps 2-3"
  "overview|rt-overview EXP"
  "overview-train|rt-overview EXP --train fixtures/train/console.log"
  "workers|rt-workers EXP"
  "workers-slowest|rt-workers EXP --step slowest"
  "requests|rt-requests EXP --step slowest"
  "requests-worker|rt-requests EXP --step slowest --worker 0 --top 2"
  "turns|rt-turns EXP"
  "turn-dist|rt-turn-dist EXP"
  "events|rt-events EXP"
  "events-steps|rt-events EXP --steps 1,3"
  "timeline|rt-timeline EXP"
  "timeline-zooms|rt-timeline EXP --step 1 --worker 0 --all-zooms"
  "timeline-window|rt-timeline EXP --steps 2- --from 1 --to 5.5"
  "tail|rt-tail EXP"
  "tail-slowest|rt-tail EXP --step slowest"
  "whatif|rt-whatif EXP --keep 0.9 --max-turns 2 --timeout 5 --defer 1"
  "export|rt-export EXP"
  "export-turns|rt-export EXP --table turns"
  "export-events|rt-export EXP --table events --steps 1"
  "export-steps|rt-export EXP --table steps"
  "export-workers|rt-export EXP --table workers --steps 2-"
  "trace|rt-trace EXP"
  "trace-steps|rt-trace EXP --steps 2- --worker 0"
  "report|rt-report EXP"
  "report-train|rt-report EXP --train fixtures/train/console.log --steps 1-3"
  "cdf-fit|rt-cdf EXP --fit"
  "cdf-fit-events|rt-cdf EXP --fit --event turn_engine_call --event tool_execution --event total_step_duration"
)
# rt-train reads a trainer log, not an experiment
train_cases=(
  "train-console|rt-train fixtures/train/console.log --metric critic/* --window 2"
  "train-grpo|rt-train fixtures/train/grpo.log"
  "train-odd|rt-train fixtures/train/odd-values.log --metric *"
  "train-none|rt-train fixtures/train/no-metrics.log"
  "train-wrapped|rt-train fixtures/train/wrapped.log --metric timing_s/*"
)
# rt-compare reads several experiments, named in each case
compare_cases=(
  "compare|rt-compare fixtures/compare/base fixtures/compare/fast"
  "compare-index|rt-compare fixtures/compare/base fixtures/compare/fast --align index --labels b,f"
  "compare-none|rt-compare fixtures/compare/base fixtures/compare/none"
  "compare-hand|rt-compare fixtures/hand-v2 fixtures/hand-v1 fixtures/hand-v2 --steps 1-3"
  "compare-fit|rt-compare fixtures/compare/base fixtures/compare/fast fixtures/hand-v2 --fit"
  "compare-samples|rt-compare fixtures/samples/exp-v1 fixtures/samples/exp-v2-damaged"
  "compare-mix|rt-compare fixtures/mix/a fixtures/mix/b --mix tokens"
  "compare-mix-turns|rt-compare fixtures/samples/exp-v1 fixtures/samples/exp-v2-damaged --mix turns --bins 1,3"
)

# every analyzer the build lists has its cases here
expect_covered "t-golden's cases" $(for c in "${cases[@]}" "${train_cases[@]}" "${compare_cases[@]}"; do c=${c#*|}; echo "${c%% *}"; done)

# run_case DIR COMMAND ARGS...: the command's answers into DIR
run_case () {
  local dir=$1 cmd=$2; shift 2
  local extra=(--out "$dir/out" --no-render)
  [ "$cmd" = rt-check ] && extra=()
  if [ "$cmd" = rt-train ]; then :
  elif [ "$cached" = 1 ]; then
    extra+=(--cache-dir "$TMP/cache")
    (cd "$SRC" && "$BUILD/$cmd" "$@" "${extra[@]}" >/dev/null 2>&1)   # writes the cache
  else extra+=(--no-cache); fi
  mkdir -p "$dir"
  (cd "$SRC" && "$BUILD/$cmd" "$@" "${extra[@]}" --json >"$dir/json" 2>/dev/null; echo $? >"$dir/exit")
  # rt-trace's JSON names the file it wrote, in the temporary output folder
  [ "$cmd" = rt-trace ] && sed -i "s|$dir|DIR|g" "$dir/json"
  rm -rf "$dir/out"
  (cd "$SRC" && "$BUILD/$cmd" "$@" "${extra[@]}" >"$dir/summary.txt" 2>/dev/null)
  # the summary (and rt-export's JSON) names the output folder, which is a temporary one
  local f text
  for f in "$dir/summary.txt" "$dir/json"; do
    text=$(cat "$f"; echo x)
    text=${text%x}
    printf '%s' "${text//"$dir"/DIR}" >"$f"
  done
  # rt-trace's file itself is kept for the fixtures, small enough to read; a sample's is not
  case $cmd:$1 in rt-trace:fixtures/samples/*) rm -rf "$dir/out" ;; esac
}

# check_case NAME COMMAND ARGS...
check_case () {
  local name=$1; shift
  run_case "$TMP/golden/$name" "$@"
  check_case_dir "$name" "$@"
}

# check_case_dir NAME [COMMAND...]: $TMP/golden/NAME against the recorded answers
check_case_dir () {
  local name=$1; shift
  local got="$TMP/golden/$name" want="$GOLDEN/$name"
  if [ $update = 1 ]; then
    rm -rf "$want"; mkdir -p "$(dirname "$want")"; cp -r "$got" "$want"; ok; return
  fi
  if [ ! -d "$want" ]; then fail "$name: no recorded answer in $want (record with --update)"; return; fi
  if [ "$cached" = 1 ] && [ "${1:-}" = rt-check ]; then
    # from the cache, rt-check says so: its "cache" object and "loaded" line are left out
    rm -rf "$TMP/want-check"; cp -r "$want" "$TMP/want-check"; want="$TMP/want-check"
    local d
    for d in "$want" "$got"; do
      python3 - "$d/json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
if isinstance(doc, dict):
    doc.pop("cache", None)
json.dump(doc, open(sys.argv[1], "w"), indent=1)
PY
      sed -i '/^loaded /d' "$d/summary.txt"
    done
  fi
  if diff -r "$want" "$got" >"$TMP/diff" 2>&1; then ok; else
    fail "$name ($*) differs from $want:"; head -12 "$TMP/diff" | cut -c 1-200 | sed 's/^/    /' >&2; fi
}

for exp in "${experiments[@]}"; do
  for c in "${cases[@]}"; do
    name=${c%%|*} line=${c#*|}
    read -r -a words <<<"$line"
    for i in "${!words[@]}"; do [ "${words[$i]}" = EXP ] && words[$i]=$exp; done
    check_case "$(basename "$exp")/$name" "${words[@]}"
  done
done
for c in "${train_cases[@]}"; do
  name=${c%%|*} line=${c#*|}
  set -f; read -r -a words <<<"$line"; set +f
  check_case "train/$name" "${words[@]}"
done
for c in "${compare_cases[@]}"; do
  name=${c%%|*}
  read -r -a words <<<"${c#*|}"
  check_case "compare/$name" "${words[@]}"
done

# rt-synth writes the same bytes as before: every file it writes (and its summary), hashed
synth_cases=(
  "v2-faults|--steps 3 --workers 4 --requests 12 --seed 7 --faults"
  "v1-faults|--schema v1 --steps 2 --workers 3 --requests 9 --seed 3 --faults --first-step 5"
  "v2-big|--steps 2 --workers 8 --requests 80 --seed 5 --threads 1"
  "v2-val-folders|--steps 7 --workers 3 --requests 8 --seed 9 --validation folders --test-freq 3 --faults"
  "v2-val-append|--steps 5 --workers 3 --requests 8 --seed 9 --validation append --test-freq 2 --val-requests 3"
)
for c in "${synth_cases[@]}"; do
  name=${c%%|*}
  read -r -a words <<<"${c#*|}"
  got="$TMP/golden/synth/$name"
  mkdir -p "$got"
  "$BUILD/rt-synth" "$TMP/synth-$name" "${words[@]}" --console-log "$TMP/synth-$name.log" \
    2>"$got/summary.txt" >/dev/null
  echo $? >"$got/exit"
  sed -i -e "s|$TMP/synth-$name|EXP|g" -e 's/ in [0-9.]* s ([0-9]* lines\/s)//' "$got/summary.txt"
  (cd "$TMP" && find "synth-$name" "synth-$name.log" -type f | LC_ALL=C sort | xargs sha256sum) >"$got/files.sha256"
  check_case_dir "synth/$name"
done
finish
