#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-examples.sh: the example program of examples/ builds against the library and agrees with the
# commands: the slowest step, its P99 request duration and its straggler, as rt-workers and
# rt-cdf give them.
. "$(dirname "$0")/lib.sh"

example="$BUILD/examples/p99-straggler"
[ -x "$example" ] && ok || fail "examples/p99-straggler was not built"

for exp in "$SRC/fixtures/hand-v2" "$SAMPLES/exp-v1" "$SAMPLES/exp-v2-damaged"; do
  expect_exit 0 "$example" "$exp"
  cp "$TMP/out" "$TMP/example.txt"
  "$BUILD/rt-workers" "$exp" --json --no-render --out "$TMP/plots" >"$TMP/workers.json" 2>/dev/null
  step=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(max(d["steps"], key=lambda s: s["total_max"])["step"])' "$TMP/workers.json")
  "$BUILD/rt-cdf" "$exp" --steps "$step" --json --no-render --out "$TMP/plots" >"$TMP/cdf.json" 2>/dev/null
  if "$PYTHON" - "$TMP/example.txt" "$TMP/workers.json" "$TMP/cdf.json" <<'PY'; then ok; else fail "p99-straggler on $exp disagrees with rt-workers / rt-cdf"; cat "$TMP/example.txt" >&2; fi
import json, re, sys
text = open(sys.argv[1]).read()
workers = json.load(open(sys.argv[2]))["steps"]
cdf = json.load(open(sys.argv[3]))["all"]
slow = max(workers, key=lambda s: s["total_max"])
step = int(re.search(r"slowest step: (\d+) \(rollout ([0-9.]+) s\)", text).group(1))
p99, count = re.search(r"P99 request duration: ([0-9.]+) s of (\d+) requests", text).groups()
worker = int(re.search(r"straggler: worker (\d+)", text).group(1))
assert step == slow["step"], (step, slow)
assert worker == slow["slowest_worker"], (worker, slow)
assert abs(float(p99) - cdf["p99"]) < 5e-4 and int(count) == cdf["count"], (p99, count, cdf)
PY
done

# a missing experiment: a message and exit 1, not a crash
expect_exit 1 "$example" "$TMP/missing"
expect_grep "p99-straggler" "$TMP/err" "the example's error names it"
finish
