#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-whatif.sh: rt-whatif on fixtures/whatif, worked by hand in fixtures/README.md ("whatif"):
# each policy, keep's exact ceil(F R) (0.28 x 25 = 7), defer K >= R and max_turns' unknowns
# without a prediction, the totals; the KS tests against scipy; usage errors and exit statuses.
. "$(dirname "$0")/lib.sh"

W="$BUILD/rt-whatif"
FX="$SRC/fixtures/whatif"
run () { expect_exit "$1" "$W" "$FX" --no-cache --no-render --out "$TMP/o" --json "${@:2}"; cp "$TMP/out" "$TMP/answer.json"; }
check () { expect_json "$TMP/want.json" "$TMP/answer.json" "rt-whatif $*"; }

run 0 --keep 0.6 --max-turns 2 --timeout 5 --defer 1
cat >"$TMP/want.json" <<'JSON'
{"policies": [
 {"policy": "keep", "value": 0.6, "steps": [
   {"step": 1, "requests": 5, "recorded_rollout_s": 20, "predicted_rollout_s": 6, "saved_s": 14, "saved_share": 0.7, "requests_cut": 2, "requests_unknown": 0},
   {"step": 2, "requests": 25, "recorded_rollout_s": 25, "predicted_rollout_s": 15, "saved_s": 10, "saved_share": 0.4, "requests_cut": 10,
    "ks_turns": {"statistic": 0, "pvalue": 1}},
   {"step": 3, "requests": 2, "recorded_rollout_s": 5, "predicted_rollout_s": 5, "saved_s": 0, "saved_share": 0, "requests_cut": 0,
    "ks_turns": null, "ks_tokens": null}],
  "total": {"steps": 3, "steps_unknown": 0, "requests": 32, "requests_cut": 12, "recorded_rollout_s": 50,
            "predicted_rollout_s": 26, "saved_s": 24, "saved_share": 0.48}},
 {"policy": "max_turns", "value": 2, "steps": [
   {"step": 1, "predicted_rollout_s": 9, "saved_s": 11, "requests_cut": 2, "requests_unknown": 0},
   {"step": 2, "predicted_rollout_s": 25, "saved_s": 0, "requests_cut": 0, "ks_turns": null},
   {"step": 3, "predicted_rollout_s": null, "saved_s": null, "saved_share": null, "requests_cut": null, "requests_unknown": 1,
    "ks_turns": null, "ks_tokens": null}],
  "total": {"steps": 2, "steps_unknown": 1, "requests": 30, "requests_cut": 2, "recorded_rollout_s": 45,
            "predicted_rollout_s": 34, "saved_s": 11}},
 {"policy": "timeout", "value": 5, "steps": [
   {"step": 1, "predicted_rollout_s": 7, "requests_cut": 2}, {"step": 2, "predicted_rollout_s": 5, "requests_cut": 20},
   {"step": 3, "predicted_rollout_s": 5, "requests_cut": 0}],
  "total": {"predicted_rollout_s": 17, "saved_s": 33, "saved_share": 0.66}},
 {"policy": "defer", "value": 1, "steps": [
   {"step": 1, "predicted_rollout_s": 10, "requests_cut": 1}, {"step": 2, "predicted_rollout_s": 24, "requests_cut": 1},
   {"step": 3, "predicted_rollout_s": 3, "requests_cut": 1}],
  "total": {"predicted_rollout_s": 37, "saved_s": 13}}]}
JSON
check "--keep 0.6 --max-turns 2 --timeout 5 --defer 1"

# keep's k is ceil(F R) in exact arithmetic: 0.28 x 25 = 7 (as doubles, 7.000000000000001 -> 8)
run 0 --keep 0.28
cat >"$TMP/want.json" <<'JSON'
{"policies": [{"policy": "keep", "steps": [{"step": 1, "predicted_rollout_s": 4, "requests_cut": 3},
  {"step": 2, "predicted_rollout_s": 7, "requests_cut": 18}, {"step": 3, "predicted_rollout_s": 3, "requests_cut": 1}]}]}
JSON
check "--keep 0.28"

# defer K >= R: no prediction for that step
run 0 --defer 5
cat >"$TMP/want.json" <<'JSON'
{"policies": [{"policy": "defer", "value": 5, "steps": [
  {"step": 1, "predicted_rollout_s": null, "requests_cut": null}, {"step": 2, "predicted_rollout_s": 20, "requests_cut": 5},
  {"step": 3, "predicted_rollout_s": null}],
  "total": {"steps": 1, "steps_unknown": 2, "requests": 25, "recorded_rollout_s": 25, "predicted_rollout_s": 20}}]}
JSON
check "--defer 5"

# the KS tests: kept against cut, turns and tokens, per step and pooled, as scipy has them
run 0 --keep 0.6
if /usr/bin/python3 -c "import scipy.stats" 2>/dev/null; then
  /usr/bin/python3 - "$TMP/answer.json" <<'PY' && ok || fail "rt-whatif's KS against scipy"
import json, math, sys
from scipy.stats import ks_2samp
p = json.load(open(sys.argv[1]))["policies"][0]
def Q(t):
    return 1.0 if t <= 0 else 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 10001))
def ks(a, b):
    d = ks_2samp(a, b).statistic
    return d, Q(math.sqrt(len(a) * len(b) / (len(a) + len(b))) * d)
# step 1, P = 6: kept r1 r2 r3 (turns 1 2 2, tokens 100 200 300), cut r4 r5 (3 4; 400 500)
want = {1: (([1, 2, 2], [3, 4]), ([100, 200, 300], [400, 500])),
        2: (([1] * 15, [1] * 10), ([10 * k for k in range(1, 16)], [10 * k for k in range(16, 26)]))}
pooled_t, pooled_k = ([], []), ([], [])
for st in p["steps"]:
    if st["step"] not in want:
        continue
    (tk, tc), (kk, kc) = want[st["step"]]
    for got, (a, b) in ((st["ks_turns"], (tk, tc)), (st["ks_tokens"], (kk, kc))):
        d, pv = ks(a, b)
        assert abs(got["statistic"] - d) < 1e-12 and abs(got["pvalue"] - pv) < 1e-9, (st["step"], got, d, pv)
    pooled_t[0].extend(tk); pooled_t[1].extend(tc); pooled_k[0].extend(kk); pooled_k[1].extend(kc)
# step 3 (P = 5) cuts nothing: its requests pool as kept (q1 turns 1, tokens 30; q2 unknown)
pooled_t[0].append(1); pooled_k[0].append(30)
for got, (a, b) in ((p["total"]["ks_turns"], pooled_t), (p["total"]["ks_tokens"], pooled_k)):
    d, pv = ks(a, b)
    assert abs(got["statistic"] - d) < 1e-12 and abs(got["pvalue"] - pv) < 1e-9, (got, d, pv)
PY
else
  echo "t-whatif: scipy is missing (apt-get install python3-scipy): the KS check against scipy is skipped"
fi

# the text summary and the files
expect_exit 0 "$W" "$FX" --keep 0.6 --defer 1 --no-cache --out "$TMP/p" --no-render
expect_grep "^keep .* 0.6 .* 3 .* 0 .* 50.00 .* 26.00 .* 48.0% .* 12" "$TMP/out" "the summary's keep line"
[ -s "$TMP/p/whatif_keep.tsv" ] && [ -s "$TMP/p/whatif_defer.tsv" ] && [ -s "$TMP/p/whatif.gp" ] && ok \
  || fail "rt-whatif's tables and plot script: $(ls "$TMP/p")"

# exit statuses: no policy, values out of range (2); no policy predicts a step, no request (1)
expect_exit 2 "$W" "$FX" --no-render --out "$TMP/o"
expect_grep "give at least one policy" "$TMP/err" "no policy"
for bad in "--keep 0" "--keep 1.5" "--keep x" "--max-turns 0" "--max-turns 1.5" "--timeout 0" "--defer -1"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$W" "$FX" $bad --no-render --out "$TMP/o"
done
run 1 --defer 25
expect_grep "no policy predicts a step" "$TMP/err" "--defer as many as every step's requests"
expect_exit 1 "$W" "$SRC/fixtures/straggler" --keep 0.9 --no-render --out "$TMP/o"
expect_grep "no selected step has a completed request" "$TMP/err" "a trace without requests"
finish
