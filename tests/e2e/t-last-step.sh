#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-last-step.sh: damage is located and a stopped run is not called running. rt-check names every
# missing and empty worker file; the last step, unfinished, is "still being written" only while the
# experiment's files changed in the last 10 minutes, and "incomplete" (damage) once nothing has
# been written for longer; rt-report's data quality and findings say the same.
. "$(dirname "$0")/lib.sh"

exp="$TMP/exp"
cp -r "$SAMPLES/exp-v2-damaged" "$exp"   # step_3 lacks worker_1, step_4/worker_3.jsonl is empty
chmod -R u+w "$exp"
state () {   # the last step's state, as rt-check --json says
  "$BUILD/rt-check" "$exp" --no-cache --json | python3 -c "import json,sys; print(json.load(sys.stdin)['last_step']['state'])"
}

# a run that stopped long ago
find "$exp" -type f -exec touch -d '2020-01-02 03:04:05' {} +
expect_exit 0 "$BUILD/rt-check" "$exp" --no-cache
expect_grep "^missing     step_3/worker_1.jsonl$" "$TMP/out" "rt-check names the missing file"
expect_grep "^empty       step_4/worker_3.jsonl (no event in it)$" "$TMP/out" "rt-check names the empty file"
expect_grep "^last step   4: incomplete (a worker file without total_step_duration; nothing written since 2020-01-02 03:04:05: the run stopped)$" \
  "$TMP/out" "a stopped run's last step"
[ "$(state)" = incomplete ] && ok || fail "last_step.state of a stopped run: $(state)"
expect_exit 0 "$BUILD/rt-report" "$exp" --no-cache --out "$TMP/page" --json
python3 - "$TMP/out" <<'PY' && ok || fail "rt-report's data_quality finding of a stopped run"
import json, sys
f = {x["id"]: x for x in json.load(open(sys.argv[1]))["findings"]}["data_quality"]
assert f["severity"] == "medium" and f["title"].startswith("The trace is damaged"), f
assert f["evidence"]["incomplete_step"] == 4 and f["evidence"]["running_step"] is None, f["evidence"]
assert "step 4 is incomplete" in f["detail"], f["detail"]
PY
expect_grep "step 4 incomplete (a worker file without total_step_duration; nothing written since 2020-01-02 03:04:05" \
  "$TMP/page/index.html" "the page's data quality"
expect_grep "missing: step_3/worker_1.jsonl; empty: step_4/worker_3.jsonl" "$TMP/page/index.html" \
  "the page names the missing and empty files"

# the same files, one of them written to a minute ago: still being written
touch -d '1 minute ago' "$exp/step_4/worker_0.jsonl"
[ "$(state)" = running ] && ok || fail "last_step.state of a run written to a minute ago: $(state)"
expect_exit 0 "$BUILD/rt-check" "$exp" --no-cache
expect_grep "^last step   4: still being written (a worker file without total_step_duration; files changed in the last 10 minutes)$" \
  "$TMP/out" "a running run's last step"

# a finished step is neither, whenever it was written
exp="$TMP/whole"
cp -r "$SRC/fixtures/hand-v1" "$exp"
chmod -R u+w "$exp"
find "$exp" -type f -exec touch -d '2 days ago' {} +
[ "$(state)" = complete ] && ok || fail "last_step.state of a finished run: $(state)"
finish
