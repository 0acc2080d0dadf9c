#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fit-scipy.sh: `rt-cdf --fit` against scipy.stats on the fixtures, both samples, a generated
# experiment and two made here (zeros and negatives; one distinct value): for every event, n,
# excluded, each distribution's parameters, KS distance, log-likelihood and AIC, and the best.
. "$(dirname "$0")/lib.sh"

# scipy comes with Debian's python3-scipy, for /usr/bin/python3, which need not be the python3
# first on PATH; without it the test checks nothing and says so (ctest: skipped, code 77)
SCIPY_PY=""
for py in "$PYTHON" /usr/bin/python3; do
  "$py" -c 'import scipy.stats, scipy.optimize' 2>/dev/null && { SCIPY_PY=$py; break; }
done
if [ -z "$SCIPY_PY" ]; then
  echo "SKIP: t-fit-scipy needs scipy (make deps installs python3-scipy for /usr/bin/python3)"
  exit 77
fi

# made here: request durations with zeros, negatives and ties; and one distinct value
made () {   # made NAME DURATION...: one step, one worker, a complete request per duration
  local dir="$TMP/$1" d k=0; shift
  mkdir -p "$dir/step_1"
  for d in "$@"; do
    k=$((k + 1))
    printf '{"timestamp": "2025-07-13T11:04:%02d", "event": "async_rollout_request_complete", "duration_sec": %s, "extra": {"request_id": "r%d", "turns": 1}, "workid": 0, "step": 1}\n' \
      "$k" "$d" "$k"
  done >"$dir/step_1/worker_0.jsonl"
}
made excluded 0 -1.5 2 2 3.5 10 0.25 0 7.75 2
made one-value 4 4 4 0
"$BUILD/rt-synth" "$TMP/generated" --steps 4 --workers 4 --requests 60 --seed 5 --faults --quiet || fail "rt-synth"

# the pooled values of each event, read independently of rt-cdf from rt-export's tables
# (request durations: requests' duration_s; a step-level section: workers' EVENT_s, the sum
# of each file; any other event: the duration_s of its lines)
events=(async_rollout_request_complete turn_engine_call tool_execution total_step_duration barrier_wait_duration)
cd "$SRC" || exit 1
for exp in fixtures/hand-v1 fixtures/hand-v2 fixtures/damaged fixtures/samples/exp-v1 \
           fixtures/samples/exp-v2-damaged "$TMP/generated" "$TMP/excluded" "$TMP/one-value"; do
  [ -d "$exp" ] || { fail "$exp not found"; continue; }
  name=$(basename "$exp")
  args=()
  for e in "${events[@]}"; do args+=(--event "$e"); done
  expect_exit 0 "$BUILD/rt-cdf" "$exp" "${args[@]}" --fit --json --out "$TMP/out-$name" --no-render
  cp "$TMP/out" "$TMP/$name.json"
  for table in requests workers events; do
    expect_exit 0 "$BUILD/rt-export" "$exp" --table $table --out "$TMP/$name-$table.csv"
  done
  if "$SCIPY_PY" - "$TMP/$name.json" "$TMP/$name" >"$TMP/check" 2>&1 <<'PY'
import csv, json, math, sys
import numpy as np
from scipy import optimize, special, stats

answer, tables = json.load(open(sys.argv[1])), sys.argv[2]
rows = {t: list(csv.DictReader(open(f"{tables}-{t}.csv", newline="", encoding="utf-8")))
        for t in ("requests", "workers", "events")}

def values_of(event):
    if event == "async_rollout_request_complete":
        return [float(r["duration_s"]) for r in rows["requests"] if r["complete"] == "1" and r["duration_s"]]
    if rows["workers"] and f"{event}_s" in rows["workers"][0]:
        return [float(r[f"{event}_s"]) for r in rows["workers"] if r[f"{event}_s"]]
    return [float(r["duration_s"]) for r in rows["events"] if r["event"] == event and r["duration_s"]]

problems = []
def close(label, got, want, rel=1e-8):
    if got is None or not math.isclose(got, want, rel_tol=rel, abs_tol=1e-12):
        problems.append(f"{label}: rt-cdf {got!r}, scipy {want!r}")

def ks(cdf, x):
    n = len(x)
    f = cdf(x)
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - f), np.max(f - (i - 1) / n)))

def weibull_shape(x):
    # scipy 1.10's weibull_min.fit(floc=0) runs a general optimizer that stops about 1e-5 short
    # of the optimum, so the shape equation of the definition is solved with scipy's brentq
    y = np.log(x) - np.mean(np.log(x))
    top = y.max()
    def g(c):
        w = np.exp(c * (y - top))
        return float(np.sum(w * y) / np.sum(w) - 1 / c)
    lo, hi = 0.5, 2.0
    while g(lo) > 0: lo /= 2
    while g(hi) < 0: hi *= 2
    c = optimize.brentq(g, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=1000)
    return c, float(np.exp(np.mean(np.log(x)) + top + np.log(np.mean(np.exp(c * (y - top)))) / c))

for ev in answer["events"]:
    event, fit = ev["event"], ev["fit"]
    where = f"{event}"
    x = np.sort(np.array(values_of(event), dtype=float))
    if ev["all"]["count"] != len(x):
        problems.append(f"{where}: rt-cdf pooled {ev['all']['count']} values, the tables hold {len(x)}")
        continue
    if len(x) == 0:
        if fit is not None:
            problems.append(f"{where}: no value, but fit is {fit!r}")
        continue
    pos = x[x > 0]
    n = len(pos)
    if fit is None or fit["n"] != n or fit["excluded"] != len(x) - n:
        problems.append(f"{where}: n/excluded: {fit and (fit['n'], fit['excluded'])}, want {(n, len(x) - n)}")
        continue
    dists = fit["dists"]
    if [d["dist"] for d in dists] != ["exponential", "lognormal", "gamma", "weibull"]:
        problems.append(f"{where}: dists {[d['dist'] for d in dists]}")
        continue
    want = {}
    if n > 0:
        _, scale = stats.expon.fit(pos, floc=0)
        want["exponential"] = ({"scale": scale}, stats.expon(scale=scale), 1)
    if len(np.unique(pos)) >= 2:
        s, _, scale = stats.lognorm.fit(pos, floc=0)
        want["lognormal"] = ({"mu": math.log(scale), "sigma": s}, stats.lognorm(s, scale=scale), 2)
        a, _, scale = stats.gamma.fit(pos, floc=0)
        want["gamma"] = ({"shape": a, "scale": scale}, stats.gamma(a, scale=scale), 2)
        c, scale = weibull_shape(pos)
        want["weibull"] = ({"shape": c, "scale": scale}, stats.weibull_min(c, scale=scale), 2)
        # scipy's own fit lands near, and no higher in likelihood than the optimum
        c2, _, scale2 = stats.weibull_min.fit(pos, floc=0)
        close(f"{where} weibull shape, weibull_min.fit", c, c2, rel=1e-3)
        if stats.weibull_min.logpdf(pos, c2, scale=scale2).sum() > stats.weibull_min.logpdf(pos, c, scale=scale).sum() + 1e-9:
            problems.append(f"{where}: weibull_min.fit found a higher likelihood than the solved equation")
    scores = {}
    for d in dists:
        label = f"{where} {d['dist']}"
        if d["dist"] not in want:
            if any(d[k] is not None for k in ("params", "ks", "loglik", "aic")):
                problems.append(f"{label}: no estimate exists, but {d!r}")
            continue
        params, frozen, k = want[d["dist"]]
        if d["params"] is None or set(d["params"]) != set(params):
            problems.append(f"{label}: params {d['params']!r}, want the keys {sorted(params)}")
            continue
        for key, v in params.items():
            close(f"{label} {key}", d["params"][key], v)
        scores[d["dist"]] = ks(frozen.cdf, pos)
        loglik = float(np.sum(frozen.logpdf(pos)))
        close(f"{label} ks", d["ks"], scores[d["dist"]])
        close(f"{label} loglik", d["loglik"], loglik)
        close(f"{label} aic", d["aic"], 2 * k - 2 * loglik)
    best = min(scores, key=lambda name: (scores[name], list(want).index(name))) if scores else None
    ours = {d["dist"]: d["ks"] for d in dists if d["ks"] is not None}
    # two distances within rounding of each other may rank either way
    if fit["best"] != best and not (best and fit["best"] in ours and math.isclose(scores[best], scores[fit["best"]], rel_tol=1e-12)):
        problems.append(f"{where}: best {fit['best']!r}, want {best!r} (KS {scores})")
    print(f"{where}: n {n}, excluded {len(x) - n}, best {fit['best']}")
if problems:
    print("\n".join(problems[:20]), file=sys.stderr)
    sys.exit(1)
PY
  then ok; else fail "rt-cdf --fit on $name against scipy:"; sed 's/^/    /' "$TMP/check" | head -24 >&2; fi
done

# the made experiments say what they were made for
"$PYTHON" -c 'import json, sys
f = json.load(open(sys.argv[1]))["events"][0]["fit"]
assert (f["n"], f["excluded"], f["best"] is not None) == (7, 3, True), f' "$TMP/excluded.json" && ok \
  || fail "excluded: 7 values > 0 and 3 excluded expected"
"$PYTHON" -c 'import json, sys
f = json.load(open(sys.argv[1]))["events"][0]["fit"]
assert (f["n"], f["excluded"], f["best"]) == (3, 1, "exponential"), f
assert [d["params"] is None for d in f["dists"]] == [False, True, True, True], f' "$TMP/one-value.json" && ok \
  || fail "one-value: only the exponential exists"
finish
