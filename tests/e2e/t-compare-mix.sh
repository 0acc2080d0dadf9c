#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-compare-mix.sh: rt-compare --mix turns|tokens [--bins EDGES] on fixtures/mix, worked by hand in
# fixtures/README.md ("mix"); the identity delta = mix + speed + unmatched on generated runs; each
# bin's KS test against scipy; usage errors and the exit status when nothing is binned.
. "$(dirname "$0")/lib.sh"

C="$BUILD/rt-compare"
FX="$SRC/fixtures/mix"
run () { expect_exit "$1" "$C" "$FX/a" "$FX/b" --no-cache --no-render --out "$TMP/o" --json "${@:2}"; cp "$TMP/out" "$TMP/answer.json"; }

# by turns, a bin per value: A binned a1 a2 a3 (a4 has no turns), B all four
run 0 --mix turns
cat >"$TMP/want.json" <<'JSON'
{"versus": [{"label": "b", "mix": {"by": "turns", "edges": null,
  "a": {"label": "a", "requests": 4, "binned": 3, "mean_s": 5.333333333333333, "tokens": 1050, "s_per_token": 0.016190476190476},
  "b": {"label": "b", "requests": 4, "binned": 4, "mean_s": 14.75, "tokens": 3800, "s_per_token": 0.015526315789474},
  "delta_s": 9.416666666666667, "mix_s": 0.416666666666667, "speed_s": 1.5, "unmatched_s": 7.5,
  "bins": [
    {"lo": 1, "hi": 2, "requests": [2, 1], "share": [0.666666666666667, 0.25], "mean_s": [3, 3],
     "s_per_token": [0.015, 0.015], "mix_s": -1.25, "speed_s": 0, "unmatched_s": 0, "ks": null},
    {"lo": 2, "hi": 3, "requests": [1, 2], "share": [0.333333333333333, 0.5], "mean_s": [10, 13],
     "s_per_token": [0.016666666666667, 0.01625], "mix_s": 1.666666666666667, "speed_s": 1.5, "unmatched_s": 0, "ks": null},
    {"lo": 3, "hi": 4, "requests": [0, 1], "share": [0, 0.25], "mean_s": [null, 30],
     "s_per_token": [null, 0.015], "mix_s": 0, "speed_s": 0, "unmatched_s": 7.5, "ks": null}]}}]}
JSON
expect_json "$TMP/want.json" "$TMP/answer.json" "rt-compare --mix turns on fixtures/mix"
expect_exit 0 "$C" "$FX/a" "$FX/b" --no-cache --no-render --out "$TMP/o" --mix turns
expect_grep "^b: mean +9.417 s against the first (by turns, 3 and 4 requests binned): mix +0.417 s, speed +1.500 s, unmatched +7.500 s" \
  "$TMP/out" "the text line of --mix turns"

# by tokens, the default edges: a4 (50 tokens) is binned now
run 0 --mix tokens
cat >"$TMP/want.json" <<'JSON'
{"versus": [{"mix": {"by": "tokens", "edges": [0, 256, 512, 1024, 2048, 4096, 8192],
  "a": {"binned": 4, "mean_s": 4.25}, "b": {"binned": 4, "mean_s": 14.75},
  "delta_s": 10.5, "mix_s": 1.125, "speed_s": 1.875, "unmatched_s": 7.5,
  "bins": [
    {"lo": 0, "hi": 256, "requests": [2, 1], "mean_s": [1.5, 3], "mix_s": -0.375, "speed_s": 0.375, "unmatched_s": 0},
    {"lo": 256, "hi": 512, "requests": [1, 0], "mean_s": [4, null], "mix_s": -1, "speed_s": 0, "unmatched_s": 0},
    {"lo": 512, "hi": 1024, "requests": [1, 2], "mean_s": [10, 13], "mix_s": 2.5, "speed_s": 1.5, "unmatched_s": 0},
    {"lo": 1024, "hi": 2048, "requests": [0, 1], "mean_s": [null, 30], "mix_s": 0, "speed_s": 0, "unmatched_s": 7.5}]}}]}
JSON
expect_json "$TMP/want.json" "$TMP/answer.json" "rt-compare --mix tokens on fixtures/mix"

# given edges: the last bin is open (hi null)
run 0 --mix tokens --bins 0,1000
cat >"$TMP/want.json" <<'JSON'
{"versus": [{"mix": {"edges": [0, 1000],
  "bins": [{"lo": 0, "hi": 1000, "requests": [4, 3]}, {"lo": 1000, "hi": null, "requests": [0, 1]}]}}]}
JSON
expect_json "$TMP/want.json" "$TMP/answer.json" "rt-compare --mix tokens --bins 0,1000"
[ -s "$TMP/o/compare_mix_2.tsv" ] && [ -s "$TMP/o/compare_mix_2.gp" ] && ok || fail "no compare_mix_2 table or script"

# nothing binned on a side: totals null, exit 1, naming it
run 1 --mix tokens --bins 5000
cat >"$TMP/want.json" <<'JSON'
{"versus": [{"mix": {"a": {"binned": 0}, "b": {"binned": 0}, "delta_s": null, "mix_s": null, "speed_s": null, "unmatched_s": null, "bins": []}}]}
JSON
expect_json "$TMP/want.json" "$TMP/answer.json" "rt-compare --mix with nothing binned"
expect_grep "has no request in a bin" "$TMP/err" "nothing binned: said"

# usage errors
expect_exit 2 "$C" "$FX/a" "$FX/b" --mix length --no-render --out "$TMP/o"
expect_grep "give turns or tokens" "$TMP/err" "--mix length"
expect_exit 2 "$C" "$FX/a" "$FX/b" --bins 0,10 --no-render --out "$TMP/o"
expect_grep "give --mix" "$TMP/err" "--bins alone"
expect_exit 2 "$C" "$FX/a" "$FX/b" --mix tokens --bins 10,5 --no-render --out "$TMP/o"
expect_grep "must ascend" "$TMP/err" "--bins descending"

# generated runs: the identity on every bin, and each bin's KS against scipy
"$BUILD/rt-synth" "$TMP/ga" --steps 2 --workers 2 --requests 60 --seed 3 --quiet
"$BUILD/rt-synth" "$TMP/gb" --steps 2 --workers 2 --requests 60 --seed 3 --tool-scale 2 --quiet
expect_exit 0 "$C" "$TMP/ga" "$TMP/gb" --mix turns --no-cache --no-render --out "$TMP/og" --json
if /usr/bin/python3 -c "import scipy.stats" 2>/dev/null; then
  /usr/bin/python3 - "$TMP/out" "$TMP/ga" "$TMP/gb" <<'PY' && ok || fail "--mix against scipy and the identity"
import glob, json, math, sys
from scipy.stats import ks_2samp
m = json.load(open(sys.argv[1]))["versus"][0]["mix"]
def by_turns(exp):
    out = {}
    for path in glob.glob(exp + "/step_*/worker_*.jsonl"):
        for line in open(path):
            d = json.loads(line)
            if d.get("event") == "async_rollout_request_complete" and math.isfinite(d.get("duration_sec", math.nan)):
                t = d.get("extra", {}).get("turns")
                if isinstance(t, int) and t >= 0:
                    out.setdefault(t, []).append(d["duration_sec"])
    return out
a, b = by_turns(sys.argv[2]), by_turns(sys.argv[3])
def Q(t):
    return 1.0 if t <= 0 else 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 10001))
assert abs(m["delta_s"] - (m["mix_s"] + m["speed_s"] + m["unmatched_s"])) < 1e-9, m
assert abs(m["delta_s"] - (m["b"]["mean_s"] - m["a"]["mean_s"])) < 1e-12, m
tested = 0
for bin in m["bins"]:
    t = int(bin["lo"])
    na, nb = len(a.get(t, [])), len(b.get(t, []))
    assert bin["requests"] == [na, nb], (bin, na, nb)
    if na >= 20 and nb >= 20:
        d = ks_2samp(b[t], a[t]).statistic
        p = Q(math.sqrt(na * nb / (na + nb)) * d)
        assert abs(bin["ks"]["statistic"] - d) < 1e-12 and abs(bin["ks"]["pvalue"] - p) < 1e-9, (bin, d, p)
        tested += 1
    else:
        assert bin["ks"] is None, bin
assert tested >= 2, tested   # the check compared something
PY
else
  echo "t-compare-mix: scipy is missing (apt-get install python3-scipy): the KS check against scipy is skipped"
fi
finish
