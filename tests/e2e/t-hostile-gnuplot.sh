#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-gnuplot.sh: hostile input, class 1 of issue 10: text from a trace, a folder name or a
# trainer log never runs a command through a gnuplot script, and the plots still render.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }

# Two experiments, so that a failure names the field that let a command through: one whose
# folder name tries to end a gnuplot string and line and run `touch PWNED`, and one whose
# finish reasons, request ids and event names do the same (`>PWNED` is a shell redirection).
"$BUILD/rt-synth" "$TMP/base" --steps 2 --workers 2 --requests 4 --seed 11 --quiet || fail "rt-synth"
cp -r "$TMP/base" "$TMP/text"
NAMED="$TMP/e"$'\n''system "touch PWNED"'$'\n''!touch PWNED'$'\n'"'x"
mv "$TMP/base" "$NAMED"
"$PYTHON" - "$TMP/text" <<'PY'
import glob, json, os, sys
exp = sys.argv[1]
reasons = ["STOP\n!touch PWNED\n#", "a'b\"c\\d\n!touch PWNED", "L\nsystem \"touch PWNED\"\n'"]
# rt-requests shows the first 8 characters of an id in a title: the newline and the command
# come first; the quote, double quote and backslash after
ids = ["\n!>PWNED'\"\\0", "\n!>PWNED'\"\\1", "\n!>PWNED'\"\\2"]
files = sorted(glob.glob(os.path.join(exp, "step_1", "worker_*.jsonl")))
docs = {f: [json.loads(l) for l in open(f)] for f in files}
done = [d for f in files for d in docs[f] if d["event"] == "async_rollout_request_complete"]
done.sort(key=lambda d: -d["duration_sec"])
rename = {d["extra"]["request_id"]: ids[k] for k, d in enumerate(done[:3])}
for k, d in enumerate(done):
    d["extra"]["finish_reason"] = reasons[k % len(reasons)]
for f in files:
    out = []
    for d in docs[f]:
        extra = d.get("extra")
        if isinstance(extra, dict) and extra.get("request_id") in rename:
            extra["request_id"] = rename[extra["request_id"]]
        out.append(d)
    last = out.pop()   # total_step_duration stays last
    rid = next(d["extra"]["request_id"] for d in out if "extra" in d and "request_id" in d["extra"])
    base = {"timestamp": last["timestamp"], "workid": last["workid"], "step": 1}
    out.append(dict(base, event="x\n!touch PWNED", duration_sec=0.5))
    out.append(dict(base, event="y'\"\\\nsystem \"touch PWNED\"", duration_sec=0.25,
                    extra={"request_id": rid}))
    out.append(last)
    with open(f, "w") as w:
        w.writelines(json.dumps(d) + "\n" for d in out)
PY

mkdir -p "$TMP/cwd"
cd "$TMP/cwd" || exit 1     # every analyzer runs from a fresh working folder
expect_plots () {   # expect_plots DIR NAME...: each NAME.png in DIR is a non-empty PNG
  local dir=$1 name; shift
  for name in "$@"; do
    if [ -s "$dir/$name.png" ] && head -c 8 "$dir/$name.png" | od -An -c | grep -q 'P   N   G'; then ok
    else fail "no rendered $name.png in ${dir//$'\n'/\\n}"; fi
  done
}
expect_no_pwned () {   # expect_no_pwned LABEL: no PWNED anywhere under the temporary root
  local found
  found=$(find "$TMP" -name 'PWNED*' | head -3)
  if [ -z "$found" ]; then ok; else fail "$1 ran a command from the input: ${found//$'\n'/\\n}"; fi
  find "$TMP" -name 'PWNED*' -delete
}
# run_all LABEL EXP: every analyzer renders EXP with its hostile texts (RAN: those run)
RAN="rt-check"
run_all () {
  local label=$1 exp=$2 state
  state=$(tree_state "$exp")
  run () {   # run ANALYZER PLOTS [ARGS...]: renders into $TMP/LABEL-ANALYZER
    local a=$1 plots=$2 out="$TMP/$label-$1"; shift 2
    RAN="$RAN rt-$a"
    expect_safe 0 "$BUILD/rt-$a" "$exp" --out "$out" --cache-dir "$TMP/c" "$@"
    # shellcheck disable=SC2086
    expect_plots "$out" $plots
    expect_no_pwned "$label: rt-$a $*"
    expect_no_temps "$out" "$label: rt-$a $*"
  }
  expect_safe 0 "$BUILD/rt-check" "$exp" --cache-dir "$TMP/c"
  run cdf cdf
  run cdf "cdf fit_qq" --fit
  run overview overview
  run workers workers_steps
  run workers "workers_step_1 worker_0_step_1 worker_1_step_1" --step 1
  run requests "requests_cdf_step_1 request_1_step_1 request_2_step_1 request_3_step_1 requests_top_step_1" \
    --step 1 --top 3
  run turns turns
  run turn-dist "turn_dist_counts turn_dist_mean"
  run events "events_pct events_stacked"
  run timeline "timeline_step_1 timeline_step_1_first_60s timeline_step_1_tail inflight_step_1" --step 1 --all-zooms
  run tail tail
  run whatif whatif --keep 0.9 --timeout 60
  # rt-report draws the same plots as SVG inside its page, which stays inert (tests/html-check.py)
  RAN="$RAN rt-report"
  expect_safe 0 "$BUILD/rt-report" "$exp" --out "$TMP/$label-report" --cache-dir "$TMP/c"
  expect_safe 0 "$PYTHON" "$SRC/tests/html-check.py" "$TMP/$label-report/index.html"
  expect_no_pwned "$label: rt-report"
  expect_no_temps "$TMP/$label-report" "$label: rt-report"
  # rt-export plots nothing: every hostile text of its CSV stays in one field
  RAN="$RAN rt-export"
  local table
  for table in requests events; do
    expect_safe 0 "$BUILD/rt-export" "$exp" --out "$TMP/$label-export" --cache-dir "$TMP/c" --table $table
    "$PYTHON" -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8"), strict=True))
assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), [len(r) for r in rows]' \
      "$TMP/$label-export/$table.csv" && ok || fail "$label: rt-export --table $table: a row broken"
    expect_no_pwned "$label: rt-export --table $table"
    expect_no_temps "$TMP/$label-export" "$label: rt-export --table $table"
  done
  # the default output folder is named after the experiment
  expect_safe 0 "$BUILD/rt-cdf" "$exp" --cache-dir "$TMP/c"
  expect_plots "$TMP/cwd/rt-out/${exp##*/}" cdf
  expect_no_pwned "$label: rt-cdf with the default --out"
  # each script also runs on its own, as the README says, and runs nothing either
  local gp
  for gp in "$TMP/$label"-*/*.gp; do
    case ${gp##*/} in rolltrace-style.gp) continue ;; esac
    (cd "${gp%/*}" && timeout 60 gnuplot "${gp##*/}" >/dev/null 2>&1) && ok \
      || fail "$label: gnuplot ${gp#"$TMP"/} fails on its own"
  done
  expect_no_pwned "$label: gnuplot on the written scripts"
  expect_tree_unchanged <(echo "$state") "$exp" "$label: the experiment after every analyzer"
}
run_all name "$NAMED"
run_all text "$TMP/text"
# the hostile event names given on the command line reach the CDF's legend
expect_safe 0 "$BUILD/rt-cdf" "$TMP/text" --out "$TMP/events-cdf" --cache-dir "$TMP/c" \
  --event $'x\n!touch PWNED' --event $'y\'"\\\nsystem "touch PWNED"'
expect_plots "$TMP/events-cdf" cdf
expect_no_pwned "rt-cdf --event with hostile names"
expect_no_temps "$TMP/events-cdf" "rt-cdf --event with hostile names"
# and the legends of their fits
expect_safe 0 "$BUILD/rt-cdf" "$TMP/text" --out "$TMP/events-fit" --cache-dir "$TMP/c" --fit \
  --event $'x\n!touch PWNED' --event $'y\'"\\\nsystem "touch PWNED"' --event async_rollout_request_complete
expect_plots "$TMP/events-fit" cdf fit_qq
expect_no_pwned "rt-cdf --fit --event with hostile names"
expect_no_temps "$TMP/events-fit" "rt-cdf --fit --event with hostile names"
# rt-trace writes no script: the hostile texts of both experiments go into its JSON, which stays
# valid for the viewers (tests/trace-check.py) and holds the request ids as they were
for exp in "$NAMED" "$TMP/text"; do
  expect_safe 0 "$BUILD/rt-trace" "$exp" --out "$TMP/trace/t.json" --cache-dir "$TMP/c"
  expect_safe 0 "$PYTHON" "$SRC/tests/trace-check.py" "$TMP/trace/t.json"
  expect_no_pwned "rt-trace on ${exp##*/}"
  expect_no_temps "$TMP/trace" "rt-trace on ${exp##*/}"
done
"$PYTHON" -c '
import json, sys
ids = {e["args"]["request_id"] for e in json.load(open(sys.argv[1]))["traceEvents"] if "request_id" in e.get("args", {})}
sys.exit(not {"\n!>PWNED\x27\"\\0", "\n!>PWNED\x27\"\\1"} <= ids)' "$TMP/trace/t.json" && ok \
  || fail "rt-trace: the hostile request ids are not in the trace as they were"
RAN="$RAN rt-trace"

# rt-compare: the hostile folder name and hostile --labels reach legends, panel labels and titles;
# the default output folder joins the names; every script also runs on its own
state=$(tree_state "$NAMED")
expect_safe 0 "$BUILD/rt-compare" "$NAMED" "$TMP/text" --out "$TMP/o-compare" --cache-dir "$TMP/c"
expect_safe 0 "$BUILD/rt-compare" "$TMP/text" "$NAMED" --out "$TMP/o-compare-l" --cache-dir "$TMP/c" --fit \
  --labels $'a\n!touch PWNED,b\'"\\\nsystem "touch PWNED"'
grep -q "best fit" "$TMP/o-compare-l/compare_cdf.gp" && ok || fail "rt-compare --fit drew no fit under hostile labels"
for o in o-compare o-compare-l; do
  expect_plots "$TMP/$o" compare_cdf compare_steps compare_turns compare_turn_dist compare_events compare_throughput compare_hist
  expect_no_temps "$TMP/$o" "rt-compare into $o"
  for gp in "$TMP/$o"/compare_*.gp; do
    (cd "$TMP/$o" && timeout 60 gnuplot "${gp##*/}" >/dev/null 2>&1) && ok || fail "gnuplot ${gp##*/} of $o on its own"
  done
done
expect_safe 0 "$BUILD/rt-compare" "$NAMED" "$TMP/text" --cache-dir "$TMP/c" --no-render
[ -d "$TMP/cwd/rt-out/${NAMED##*/}+text" ] && ok || fail "rt-compare's default --out is not the names joined"
expect_no_pwned "rt-compare with a hostile folder name and labels"
expect_tree_unchanged <(echo "$state") "$NAMED" "the experiment after rt-compare"
RAN="$RAN rt-compare"

# a trainer log whose metric names hold quotes, control characters and gnuplot commands
{
  for step in 1 2 3; do
    printf 'step:%d - timing_s/gen:%d.5 - timing_s/step:%d - perf/throughput:1000' "$step" $((40 + step)) $((90 + step))
    printf " - evil'name:%d" "$step"
    printf ' - ctl\001\013\037name:%d' "$step"
    printf " - sys';system(\"touch PWNED\");'x:%d" "$step"
    printf ' - q"\\"!touch PWNED:%d' "$step"
    printf '\n'
  done
} >"$TMP/train.log"
expect_safe 0 "$BUILD/rt-train" "$TMP/train.log" --metric '*' --out "$TMP/o-train" --json
RAN="$RAN rt-train"
metrics=$("$PYTHON" -c "import json,sys; print(len(json.load(sys.stdin)['metrics']))" <"$TMP/out" 2>/dev/null || echo 0)
[ "$metrics" -ge 7 ] && ok || fail "rt-train --json lists $metrics metrics, expected the 7 of the log"
drawn=$(find "$TMP/o-train" -name 'metric_*.png' -size +0 | wc -l)
[ "$drawn" -eq "$metrics" ] && ok || fail "rt-train --metric '*' drew $drawn metric plots for $metrics metrics"
expect_plots "$TMP/o-train" step_timing_breakdown throughput
expect_no_pwned "rt-train with hostile metric names"
expect_no_temps "$TMP/o-train" "rt-train with hostile metric names"
expect_covered "t-hostile-gnuplot" $RAN
cd "$TMP" && finish
