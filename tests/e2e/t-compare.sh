#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-compare.sh: rt-compare on the hand-worked experiments of fixtures/compare (answers in
# fixtures/README.md), its labels, alignments and exit codes, its seven plots, and its KS test
# against an independent reading of the trace (scipy's D, the p-value's series written out here).
. "$(dirname "$0")/lib.sh"

C="$BUILD/rt-compare"
FX=fixtures/compare
ANSWERS="$SRC/$FX/answers"
cd "$SRC" || exit 1   # relative paths: the JSON's "path" is the argument as given
run () { expect_exit "$1" "$C" "${@:2}" --no-cache --no-render --out "$TMP/outdir" --json; }

# --- the hand-worked answers ---------------------------------------------------------------------
run 0 $FX/base $FX/fast
expect_json "$ANSWERS/base-fast.json" "$TMP/out" "base against fast"
run 0 $FX/base $FX/fast --align index
expect_json "$ANSWERS/base-fast-index.json" "$TMP/out" "base against fast, --align index"
run 0 $FX/base $FX/base
expect_json "$ANSWERS/base-base.json" "$TMP/out" "an experiment against itself: D 0, p 1, ratios 1"
# --steps selects in each: base keeps step 3, fast steps 3 and 4, and rows follow base
run 0 $FX/base $FX/fast --steps 3-
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "--steps 3- on base and fast"
import json, sys
d = json.load(open(sys.argv[1]))
assert [e["steps"] for e in d["experiments"]] == [1, 2], d["experiments"]
assert [e["requests"] for e in d["experiments"]] == [1, 4]
assert [r["step"] for r in d["steps"]] == [3] and d["steps"][0]["rollout_s"] == [30.0, 10.0]
PY

# --- exit 1 names the experiment without durations; the JSON is still printed -----------------
run 1 $FX/base $FX/none
expect_json "$ANSWERS/base-none.json" "$TMP/out" "an experiment without request durations"
expect_grep "^rt-compare: none ($FX/none): no finite request duration in the selected steps" "$TMP/err" \
  "exit 1 names the experiment"
[ "$(grep -c . "$TMP/err")" -eq 1 ] && ok || fail "more than the one error line: $(cat "$TMP/err")"

# --- labels ------------------------------------------------------------------------------------
run 0 $FX/base $FX/fast $FX/base --labels x,y,x
"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert [e['label'] for e in d['experiments']] == ['x','y','x#2']; \
assert [v['label'] for v in d['versus']] == ['y','x#2']" "$TMP/out" && ok || fail "--labels x,y,x"
run 2 $FX/base $FX/fast --labels only-one
expect_grep "^rt-compare: --labels gives 1 label for 2 experiments" "$TMP/err" "--labels of the wrong count"
run 2 $FX/base $FX/fast --labels a,b,c
expect_grep "gives 3 labels for 2 experiments" "$TMP/err" "--labels of three for two"
run 2 $FX/base $FX/fast --labels a,
expect_grep "label 2 is empty" "$TMP/err" "an empty label"
run 2 $FX/base $FX/fast --align sideways
expect_grep "^rt-compare: --align: 'sideways' is not step or index" "$TMP/err" "--align of an unknown kind"
expect_exit 2 "$C" $FX/base --no-cache
expect_grep "missing argument" "$TMP/err" "one experiment is not a comparison"
# the default labels are the folders' names
run 0 $FX/fast $FX/base
"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert [e['label'] for e in d['experiments']] == ['fast','base']; \
assert [r['step'] for r in d['steps']] == [2, 3, 4]" "$TMP/out" && ok || fail "fast first: its steps lead"

# --- --help: the JSON keys and the definitions ----------------------------------------------------
expect_exit 0 "$C" --help
for key in '"experiments"' '"versus"' '"steps"' 'duration.p999' 'ks.statistic' 'ks.pvalue' 'barrier_share_mean' \
           'tokens_per_s' 'requests_per_s' 'interval_s' '--align' '--labels'; do
  expect_grep "$key" "$TMP/out" "--help lists $key"
done

# --- KS against an independent reading: scipy's D, the p-value's series written out ---------------
"$BUILD/rt-synth" "$TMP/a" --steps 3 --workers 2 --requests 40 --seed 3 --quiet || fail "rt-synth a"
"$BUILD/rt-synth" "$TMP/b" --steps 3 --workers 2 --requests 30 --seed 4 --tool-scale 2 --quiet || fail "rt-synth b"

# --- the seven plots, rendered, and the text table ------------------------------------------------
if command -v gnuplot >/dev/null; then
  expect_exit 0 "$C" "$TMP/a" "$TMP/b" --no-cache --out "$TMP/plots"
  for p in compare_cdf compare_steps compare_turns compare_turn_dist compare_events compare_throughput compare_hist; do
    [ -s "$TMP/plots/$p.png" ] && ok || fail "no $p.png"
  done
  # the fixtures have no turn timings: that plot is left out, with a note
  expect_exit 0 "$C" $FX/base $FX/fast --no-cache --out "$TMP/plots-fx"
  expect_grep "^fast .* x0.571 .* 0.5000 .* 0.395" "$TMP/out" "the text table's versus line"
  expect_grep "note: compare_turns is not drawn" "$TMP/err" "no turn timings: said"
  [ ! -e "$TMP/plots-fx/compare_turns.gp" ] && [ -s "$TMP/plots-fx/compare_cdf.png" ] && ok \
    || fail "the fixtures' plots: $(ls "$TMP/plots-fx")"
fi
expect_exit 0 "$C" "$TMP/a" "$TMP/b" --no-cache --no-render --out "$TMP/out-ks" --json
if /usr/bin/python3 -c "import scipy.stats" 2>/dev/null; then
  /usr/bin/python3 - "$TMP/out" "$TMP/a" "$TMP/b" <<'PY' && ok || fail "KS against scipy and the series"
import glob, json, math, sys
from scipy.stats import ks_2samp
doc = json.load(open(sys.argv[1]))
def durations(exp):   # every finite duration_sec of async_rollout_request_complete
    out = []
    for path in glob.glob(exp + "/step_*/worker_*.jsonl"):
        for line in open(path):
            d = json.loads(line)
            if d.get("event") == "async_rollout_request_complete" and math.isfinite(d.get("duration_sec", math.nan)):
                out.append(d["duration_sec"])
    return out
a, b = durations(sys.argv[2]), durations(sys.argv[3])
def Q(t):   # 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2), 1 at t = 0
    return 1.0 if t <= 0 else 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 10001))
ks = doc["versus"][0]["ks"]
d = ks_2samp(b, a).statistic
p = Q(math.sqrt(len(a) * len(b) / (len(a) + len(b))) * d)
assert abs(ks["statistic"] - d) < 1e-12, (ks, d)
assert abs(ks["pvalue"] - p) < 1e-9, (ks, p)
assert 0 < d < 1 and 0 < p < 1, (d, p)   # a test that says something
assert doc["experiments"][0]["duration"]["count"] == len(a) and doc["experiments"][1]["duration"]["count"] == len(b)
PY
else
  echo "t-compare: scipy is missing (apt-get install python3-scipy): the KS check against scipy is skipped"
fi
# --fit: each experiment carries rt-cdf --fit's object for its request durations, the same numbers;
# an experiment without a duration has "fit": null; without --fit there is no "fit" key at all
run 0 $FX/base $FX/fast --fit --steps 2-
cp "$TMP/out" "$TMP/compare-fit.json"
for x in base fast; do
  expect_exit 0 "$BUILD/rt-cdf" $FX/$x --fit --steps 2- --no-cache --no-render --out "$TMP/cdf-$x" --json
  cp "$TMP/out" "$TMP/cdf-fit-$x.json"
done
"$PYTHON" - "$TMP/compare-fit.json" "$TMP/cdf-fit-base.json" "$TMP/cdf-fit-fast.json" <<'PY' && ok || fail "rt-compare --fit differs from rt-cdf --fit"
import json, sys
c = json.load(open(sys.argv[1]))
for e, path in zip(c["experiments"], sys.argv[2:]):
    assert e["fit"] == json.load(open(path))["fit"], (e["label"], e["fit"])
    assert e["fit"]["n"] == e["duration"]["count"]
PY
run 1 $FX/base $FX/none --fit
"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['experiments'][1]['fit'] is None" "$TMP/out" \
  && ok || fail "an experiment without a duration has no null fit"
run 0 $FX/base $FX/fast
grep -q '"fit"' "$TMP/out" && fail "rt-compare without --fit writes a fit" || ok
finish
