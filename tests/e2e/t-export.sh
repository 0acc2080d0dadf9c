#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-export.sh: rt-export's CSV read back with python's csv module: its rows and sums are the other
# analyzers' answers, hostile text stays in its field, .gz and stdout hold the same, step ranges add up.
. "$(dirname "$0")/lib.sh"

synth="$TMP/synth"
"$BUILD/rt-synth" "$synth" --steps 3 --workers 3 --requests 6 --seed 7 --faults -q
EXPS="$SRC/fixtures/hand-v2 $SRC/fixtures/hand-v1 $SRC/fixtures/damaged $SAMPLES/exp-v1 $SAMPLES/exp-v2-damaged $synth"

# export EXP TABLE: writes $TMP/csv/TABLE.csv; exit 1 only for a table without rows (the
# older logger writes no turn records), which the comparisons below then check
export_table () {
  "$BUILD/rt-export" "$1" --table "$2" -o "$TMP/csv/$2.csv" --quiet 2>"$TMP/err"
  local status=$?
  if [ $status -eq 0 ] || { [ $status -eq 1 ] && [ "$(wc -l <"$TMP/csv/$2.csv")" -eq 1 ]; }; then ok; else
    fail "rt-export $1 --table $2: exit $status"; fi
}

# The CSV against the analyzers' --json: requests with complete=1 and a duration per step are
# rt-cdf's count, their durations sum to its mean x count; complete requests are rt-check's
# "requests", event rows its "events", worker rows its "files" and their lines its "lines";
# turn rows per index rt-turns' count; step rollouts rt-overview's.
for exp in $EXPS; do
  rm -rf "$TMP/csv" "$TMP/json"
  mkdir -p "$TMP/json"
  # fixtures/damaged has one JSON object whose event is not a string: no event row
  nameless=0
  case $exp in */fixtures/damaged) nameless=1 ;; esac
  for table in requests turns events steps workers; do export_table "$exp" "$table"; done
  # rt-check, an inventory, reads every rollout unless told: the export reads the training ones
  "$BUILD/rt-check" "$exp" --rollouts training --json >"$TMP/json/check.json" 2>/dev/null
  for a in cdf turns overview; do
    "$BUILD/rt-$a" "$exp" --json --out "$TMP/plots" --no-render >"$TMP/json/$a.json" 2>/dev/null
  done
  "$PYTHON" - "$TMP/csv" "$TMP/json" "$nameless" <<'PY' && ok || fail "CSV of $exp disagrees with the analyzers"
import csv, json, math, sys, collections
d, j = sys.argv[1], sys.argv[2]
def rows(table):
    with open(f"{d}/{table}.csv", newline="", encoding="utf-8") as f:
        r = list(csv.DictReader(f, strict=True))
    return r
def load(name):
    try:
        return json.load(open(f"{j}/{name}.json"))
    except ValueError:
        return None
check = load("check")
req = rows("requests")
assert sum(r["complete"] == "1" for r in req) == check["requests"], "complete requests"
n, s = collections.Counter(), collections.defaultdict(float)
for r in req:
    if r["complete"] == "1" and r["duration_s"] != "":
        n[int(r["step"])] += 1
        s[int(r["step"])] += float(r["duration_s"])
cdf = load("cdf")
want = {x["step"]: x for x in cdf["steps"]} if cdf else {}
assert set(n) == set(want), (sorted(n), sorted(want))
for step, x in want.items():
    assert n[step] == x["count"], (step, n[step], x["count"])
    assert math.isclose(s[step], x["mean"] * x["count"], rel_tol=1e-9), (step, s[step], x["mean"] * x["count"])
nameless = int(sys.argv[3])
assert len(rows("events")) == check["events"] - nameless, (len(rows("events")), check["events"])
workers = rows("workers")
assert len(workers) == check["files"], "worker files"
assert sum(int(w["lines"]) for w in workers) == check["lines"], "lines"
turns = load("turns")
by_turn = collections.Counter(int(t["turn"]) for t in rows("turns") if t["turn"] != "")
assert by_turn == collections.Counter({x["turn"]: x["count"] for x in (turns["turns"] if turns else [])}), by_turn
steps = rows("steps")
assert len(steps) == check["steps"], "steps"
overview = {x["step"]: x["rollout_s"] for x in load("overview")["steps"]} if load("overview") else {}
assert {int(x["step"]): float(x["rollout_s"]) for x in steps if x["rollout_s"] != ""} == overview, "rollout_s"
# a step with a time has a start, from the trace's first step start (a step without one changes nothing)
timed = [x for x in steps if x["clock_s"] != ""]
assert all(x["start_s"] != "" for x in timed), steps
assert not timed or min(float(x["start_s"]) for x in timed) == 0, steps
PY
done

# Step ranges exported apart add up to the whole, header aside (how a trace too big for one
# machine is exported in pieces).
exp=$SAMPLES/exp-v2-damaged
for table in requests events workers steps; do
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" -o "$TMP/all.csv" -q
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" --steps 1-2 -o "$TMP/a.csv" -q
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" --steps 3- -o "$TMP/b.csv" -q
  cmp -s "$TMP/all.csv" <(cat "$TMP/a.csv"; tail -n +2 "$TMP/b.csv") && ok || fail "$table: steps 1-2 and 3- are not the whole"
done

# .gz is the same CSV compressed; -o - writes it on stdout; a folder gets TABLE.csv
expect_exit 0 "$BUILD/rt-export" "$exp" -t events -o "$TMP/events.csv" --json
expect_grep '"rows": 4734' "$TMP/out" "--json rows"
expect_exit 0 "$BUILD/rt-export" "$exp" -t events -o "$TMP/events.csv.gz" --json
"$PYTHON" - "$TMP/out" "$TMP/events.csv.gz" <<'PY' && ok || fail "--json of a .gz export"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["table"] == "events" and d["rows"] == 4734 and d["bytes"] == os.path.getsize(sys.argv[2]), d
assert d["columns"] == ["step", "worker", "event", "request_id", "turn", "start_s", "end_s", "duration_s"], d
PY
cmp -s "$TMP/events.csv" <(gzip -dc "$TMP/events.csv.gz") && ok || fail ".gz does not hold the same CSV"
"$BUILD/rt-export" "$exp" -t events -o - 2>/dev/null | cmp -s "$TMP/events.csv" - && ok || fail "-o - differs"
expect_exit 0 "$BUILD/rt-export" "$exp" -t steps -o "$TMP/folder"
[ -s "$TMP/folder/steps.csv" ] && ok || fail "-o FOLDER: no FOLDER/steps.csv"
expect_grep "steps.csv: 4 rows of steps" "$TMP/out" "the text summary"
(cd "$TMP" && "$BUILD/rt-export" "$exp" -q) && [ -s "$TMP/rt-out/exp-v2-damaged/requests.csv" ] && ok \
  || fail "the default output is not rt-out/EXPNAME/requests.csv"
[ -z "$(find "$TMP" -name '.*.csv*')" ] && ok || fail "a temporary is left: $(find "$TMP" -name '.*.csv*')"

# Hostile text: request ids and a finish reason with a comma, quotes, CR and LF each stay one
# field and every row keeps its columns. Invalid UTF-8 never reaches a table through the parser
# (raw bytes make a bad line, a lone surrogate escape an unreadable id, read as ""): the file
# stays strict UTF-8; the writer's own U+FFFD replacement is a unit test (test-table).
hostile="$TMP/hostile"
mkdir -p "$hostile/step_1"
"$PYTHON" - "$hostile/step_1/worker_0.jsonl" <<'PY'
import json, sys
ids = ["a,b", 'say "hi"', "line\nbreak\r\nx", '",\n,"', "=1+2", "bad\udcffid", "raw\udcfe"]
with open(sys.argv[1], "wb") as f:
    for k, rid in enumerate(ids):
        line = json.dumps({"timestamp": "2025-01-01T10:00:%02d" % (k + 10), "event": "async_rollout_request_complete",
                           "duration_sec": k + 1.5, "extra": {"request_id": rid, "finish_reason": "x,\"y\"\nz", "turns": 1}})
        f.write(line.encode("utf-8").replace(b"\\udcfe", b"\xfe") + b"\n")
PY
expect_exit 0 "$BUILD/rt-export" "$hostile" -o "$TMP/h.csv" --no-cache
expect_exit 0 "$BUILD/rt-export" "$hostile" -t events -o "$TMP/he.csv" --no-cache
"$PYTHON" - "$TMP/h.csv" "$TMP/he.csv" <<'PY' && ok || fail "hostile text broke a row"
import csv, sys
ids = ["a,b", 'say "hi"', "line\nbreak\r\nx", '",\n,"', "=1+2", ""]
for path in sys.argv[1:]:
    text = open(path, "rb").read().decode("utf-8")        # strict: the file is valid UTF-8
    r = list(csv.reader(text.splitlines(keepends=True), strict=True))
    header, body = r[0], r[1:]
    assert all(len(row) == len(header) for row in body), [len(row) for row in body]
    assert sorted(row[header.index("request_id")] for row in body) == sorted(ids), body
    if "finish_reason" in header:
        assert {row[header.index("finish_reason")] for row in body} == {'x,"y"\nz'}
PY

# Refusals: a bad --table, -o - with --json, -o inside the experiment (nothing written there),
# and a failed write leaves no file.
expect_exit 2 "$BUILD/rt-export" "$exp" --table nope
expect_grep "rt-export: --table: 'nope'" "$TMP/err" "a bad --table"
expect_exit 2 "$BUILD/rt-export" "$exp" -o - --json
expect_exit 2 "$BUILD/rt-export" "$hostile" -o "$hostile/step_1/x.csv"
expect_grep "inside the experiment" "$TMP/err" "-o inside EXP"
ln -s "$hostile" "$TMP/link"
expect_exit 2 "$BUILD/rt-export" "$hostile" -o "$TMP/link/x.csv.gz"
[ "$(find "$hostile" -type f | wc -l)" -eq 1 ] && ok || fail "rt-export wrote into the experiment"
expect_exit 1 "$BUILD/rt-export" "$hostile" -t turns -o "$TMP/noturns.csv" --no-cache
[ "$(cat "$TMP/noturns.csv")" = "step,worker,request_id,turn,source,pre_process_s,engine_call_s,post_process_s,tool_parsing_s,total_s" ] \
  && ok || fail "a table without rows is not its header alone"
mkdir -p "$TMP/small"
( trap '' XFSZ; ulimit -f 8; "$BUILD/rt-export" "$exp" -t events -o "$TMP/small/events.csv" ) >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && ok || fail "a failed write is not exit 1"
expect_grep "rt-export: " "$TMP/err" "a failed write"
[ -z "$(ls -A "$TMP/small")" ] && ok || fail "a failed write left $(ls -A "$TMP/small")"

echo "t-export: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
