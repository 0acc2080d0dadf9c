#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-report-why-tail.sh: rt-report's "why the tail" on fixtures/why-tail (worked in fixtures/README.md):
# tail_cause and whatif_saving with their evidence, a warning where the cut requests differ and a
# recommendation where they do not, the same numbers as rt-tail and rt-whatif, the section listed in
# --json; and --compare's mix split, rt-compare --mix turns's own.
. "$(dirname "$0")/lib.sh"

FIX="$SRC/fixtures/why-tail"
O=(--cache-dir "$TMP/c" --no-render)

# py EXPR FILE...: evaluates EXPR on the JSON documents of the FILEs (as d, e)
py () {
  local expr=$1; shift
  "$PYTHON" -c "import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
d = docs[0]; e = docs[-1]
def finding(doc, id):
    return {f['id']: f for f in doc['findings']}.get(id)
print($expr)" "$@"
}

for round in first cached; do
  # ---- differ: extra turns in both steps; keeping 90 % cuts requests of more turns and tokens
  expect_exit 0 "$BUILD/rt-report" "$FIX/differ" --json --out "$TMP/differ" "${O[@]}"
  cp "$TMP/out" "$TMP/differ.json"
  expect_eq "$(py "d['sections']" "$TMP/differ.json")" \
    "['overview', 'tail', 'why_tail', 'workers', 'requests', 'turns', 'timeline', 'sections', 'quality']" \
    "differ ($round): the sections, why_tail after the tail"
  expect_eq "$(py "[(f['id'], f['severity']) for f in d['findings']]" "$TMP/differ.json")" \
    "[('long_tail', 'medium'), ('whatif_saving', 'medium'), ('tail_cause', 'info')]" \
    "differ ($round): the findings, whatif_saving a warning"
  expect_eq "$(py "finding(d, 'tail_cause')['evidence']" "$TMP/differ.json")" \
    "{'cause': 'extra_turns', 'steps': 2, 'of_steps': 2, 'excess_s': 20, 'lateness_excess_s': 44}" \
    "differ ($round): tail_cause's evidence"
  expect_eq "$(py "[finding(d, 'whatif_saving')['evidence'][k] for k in ('steps', 'requests', 'defer_saved_s', 'defer_requests_cut', 'keep_saved_s', 'keep_requests_cut')]" "$TMP/differ.json")" \
    "[2, 40, 8, 2, 26, 4]" "differ ($round): whatif_saving's savings and cuts"
  expect_eq "$(py "round(finding(d, 'whatif_saving')['evidence']['keep_ks_turns_p'], 5), round(finding(d, 'whatif_saving')['evidence']['defer_ks_tokens_p'], 4)" "$TMP/differ.json")" \
    "0.00149 0.066" "differ ($round): the KS p-values, Q(1.897) and Q(1.306)"

  # ---- alike: a late launch in 2 of 3 steps; the cut requests are like the kept ones
  expect_exit 0 "$BUILD/rt-report" "$FIX/alike" --json --out "$TMP/alike" "${O[@]}"
  cp "$TMP/out" "$TMP/alike.json"
  expect_eq "$(py "finding(d, 'whatif_saving')['severity']" "$TMP/alike.json")" "info" \
    "alike ($round): whatif_saving a recommendation"
  expect_eq "$(py "finding(d, 'tail_cause')['evidence']" "$TMP/alike.json")" \
    "{'cause': 'launch', 'steps': 2, 'of_steps': 3, 'excess_s': 44, 'lateness_excess_s': 44}" \
    "alike ($round): tail_cause's evidence"
  expect_eq "$(py "[finding(d, 'whatif_saving')['evidence'][k] for k in ('defer_saved_s', 'keep_saved_s', 'min_pvalue')]" "$TMP/alike.json")" \
    "[10, 34, 1]" "alike ($round): whatif_saving's savings, and every p-value 1"
done

# ---- the same numbers as rt-tail and rt-whatif (R = 20 in every step: --defer 1 is the 5 %)
for exp in differ alike; do
  expect_exit 0 "$BUILD/rt-tail" "$FIX/$exp" --json --out "$TMP/tail-$exp" "${O[@]}"
  cp "$TMP/out" "$TMP/tail.json"
  cmp -s "$TMP/tail-$exp/tail_steps.tsv" "$TMP/$exp/tail_steps.tsv" && ok || fail "$exp: the report's tail_steps.tsv is not rt-tail's"
  expect_eq "$(py "sum(s['tail']['excess']['extra_turns'] for s in d['steps'] if s['tail']['dominant'] == 'extra_turns') + sum(s['tail']['excess']['launch'] for s in d['steps'] if s['tail']['dominant'] == 'launch') == finding(e, 'tail_cause')['evidence']['excess_s']" "$TMP/tail.json" "$TMP/$exp.json")" \
    "True" "$exp: tail_cause's seconds are rt-tail's excess of the dominant steps"
  expect_exit 0 "$BUILD/rt-whatif" "$FIX/$exp" --keep 0.9 --defer 1 --json --out "$TMP/whatif-$exp" "${O[@]}"
  cp "$TMP/out" "$TMP/whatif.json"
  expect_eq "$(py "[(p['total']['saved_s'], p['total']['saved_share'], p['total']['requests_cut'], p['total']['ks_turns']['pvalue']) for p in d['policies']] == [(f[k + '_saved_s'], f[k + '_saved_share'], f[k + '_requests_cut'], f[k + '_ks_turns_p']) for f in [finding(e, 'whatif_saving')['evidence']] for k in ('keep', 'defer')]" "$TMP/whatif.json" "$TMP/$exp.json")" \
    "True" "$exp: whatif_saving's numbers are rt-whatif --keep 0.9 --defer 1's"
  cmp -s "$TMP/whatif-$exp/whatif_keep.tsv" "$TMP/$exp/whatif_keep.tsv" && ok || fail "$exp: the report's whatif_keep.tsv is not rt-whatif's"
done

# ---- --compare: the mix split, rt-compare --mix turns's (alike the reference; README: 0.86667)
expect_exit 0 "$BUILD/rt-report" "$FIX/alike" --compare "$FIX/differ" --json --out "$TMP/both" "${O[@]}"
cp "$TMP/out" "$TMP/both.json"
expect_eq "$(py "d['sections'][-1], [v['label'] for v in d['comparison']['versus']]" "$TMP/both.json")" \
  "comparison ['differ']" "--compare: the comparison section and its versus entry"
expect_eq "$(py "[round(d['comparison']['versus'][0]['mix'][k], 5) for k in ('delta_s', 'mix_s', 'speed_s', 'unmatched_s')]" "$TMP/both.json")" \
  "[0.86667, -0.52333, -0.21, 1.6]" "--compare: delta = mix + speed + unmatched, by hand"
expect_exit 0 "$BUILD/rt-compare" "$FIX/alike" "$FIX/differ" --mix turns --json --out "$TMP/cmp" "${O[@]}"
cp "$TMP/out" "$TMP/cmp.json"
expect_eq "$(py "d['versus'][0]['mix'] == e['comparison']['versus'][0]['mix']" "$TMP/cmp.json" "$TMP/both.json")" \
  "True" "--compare: the mix is rt-compare --mix turns's"
cmp -s "$TMP/cmp/compare_mix_2.tsv" "$TMP/both/compare_mix_2.tsv" && ok || fail "the report's compare_mix_2.tsv is not rt-compare's"
expect_grep 'mix -0.523 s' "$TMP/both/index.html" "the page tells the mix term"
# without --compare there is no comparison key
expect_eq "$(py "'comparison' in d" "$TMP/alike.json")" "False" "no comparison without --compare"
finish
