#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-export-duckdb.sh: the README's DuckDB query, as written there, on an older-logger export in
# two step ranges: it runs (its section sums, empty in every row, read as DOUBLE, not text), and
# gives rt-cdf's P99 of the slowest steps. Every table read with `rt-export --schema duckdb` has
# the declared column types, and hostile ids read back as written. DuckDB is the Node.js client
# `make bench-deps` installs into bench/node_modules; without it (or node) the test is skipped.
. "$(dirname "$0")/lib.sh"

need_duckdb

# The README's query: the argument of its first `duckdb -c "..."`, its $(...) run in the folder
# of the exports, with build/ there the build under test. A quote in the folder's name goes
# through the SQL literal of the printed read_csv.
work="$TMP/it's here"
mkdir -p "$work"
ln -s "$BUILD" "$work/build"
query_text=$("$PYTHON" - "$SRC/README.md" <<'PY'
import re, sys
m = re.search(r'duckdb -c "(.*?)"\n', open(sys.argv[1], encoding="utf-8").read(), re.S)
print(m.group(1) if m else "")
PY
)
[ -n "$query_text" ] && ok || fail "README.md holds no duckdb -c \"...\" query"

exp=$SAMPLES/exp-v1
expect_exit 0 "$BUILD/rt-export" "$exp" --steps 1-2 -o "$work/exp-requests-1.csv.gz"
expect_exit 0 "$BUILD/rt-export" "$exp" --steps 3- -o "$work/exp-requests-2.csv.gz"
query=$(cd "$work" && eval "printf '%s' \"$query_text\"")
expect_grep "read_csv(" <(printf '%s' "$query") "the README query with the printed read_csv"
cd "$work" || exit 1      # the query names the files as the README does, relative
duckdb "$query"
cd "$TMP" || exit 1
cp "$TMP/out" "$TMP/readme.json"
"$BUILD/rt-cdf" "$exp" --json --out "$TMP/plots" --no-render >"$TMP/cdf.json" 2>/dev/null
"$PYTHON" - "$TMP/readme.json" "$TMP/cdf.json" <<'PY' && ok || fail "the README query's answer on the older logger"
import json, math, sys
got = json.loads(open(sys.argv[1]).readline())
types = {c["name"]: c["type"] for c in got["columns"]}
assert types == {"step": "BIGINT", "p99_s": "DOUBLE", "tool_share": "DOUBLE"}, types
cdf = json.load(open(sys.argv[2]))
want = sorted(cdf["steps"], key=lambda s: -s["p99"])[:5]
assert len(got["rows"]) == len(want) > 0, (got["rows"], want)
for (step, p99, tool_share), w in zip(got["rows"], want):
    assert int(step) == w["step"] and math.isclose(p99, w["p99"], rel_tol=1e-12), (step, p99, w)
    assert tool_share is None, tool_share      # the older logger ties no tool line to a request
PY

# Every table, read with its printed schema: the header's columns, each of its declared type, and
# as many rows as rt-export wrote. fixtures/incomplete has a request without a complete line.
for exp in "$SAMPLES/exp-v1" "$SRC/fixtures/incomplete"; do
  name=$(basename "$exp")
  for table in requests turns events steps workers; do
    csv="$TMP/$name-$table.csv"
    "$BUILD/rt-export" "$exp" --table "$table" -o "$csv" --json >"$TMP/export.json" 2>/dev/null
    [ $? -le 1 ] && ok || fail "rt-export $exp --table $table"
    expect_exit 0 "$BUILD/rt-export" --schema duckdb --table "$table" -o "$csv"
    read_csv=$(cat "$TMP/out")
    duckdb "DESCRIBE SELECT * FROM $read_csv" "SELECT count(*) FROM $read_csv"
    "$PYTHON" - "$TMP/out" "$TMP/export.json" "$table" <<'PY' && ok || fail "$name $table read with other types"
import json, sys
describe, count = (json.loads(line) for line in open(sys.argv[1]))
export, table = json.load(open(sys.argv[2])), sys.argv[3]
def declared(column):
    if column in ("request_id", "finish_reason", "event", "source", "file"):
        return "VARCHAR"
    if column == "complete" and table == "requests":
        return "BOOLEAN"
    return "DOUBLE" if column.endswith("_s") else "BIGINT"
got = [(row[0], row[1]) for row in describe["rows"]]
assert got == [(c, declared(c)) for c in export["columns"]], got
assert int(count["rows"][0][0]) == export["rows"], (count, export["rows"])
PY
  done
done
csv="$TMP/incomplete-requests.csv"
duckdb "SELECT request_id, complete, turns, duration_s FROM $("$BUILD/rt-export" --schema duckdb -o "$csv") ORDER BY request_id"
expect_grep '"rows":\[\["a",true,"1",3\],\["b",true,"2",5\],\["c",false,null,null\]\]' "$TMP/out" \
  "the cut-off request: complete false, turns and duration NULL"

# Hostile ids (a comma, quotes, CR and LF, NA, an empty id) read back as written, "" as an empty
# text rather than NULL
hostile="$TMP/hostile"
mkdir -p "$hostile/step_1"
"$PYTHON" - "$hostile/step_1/worker_0.jsonl" <<'PY'
import json, sys
ids = ["a,b", 'say "hi"', "line\nbreak\r\nx", '",\n,"', "=1+2", "NA", ""]
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for k, rid in enumerate(ids):
        f.write(json.dumps({"timestamp": "2025-01-01T10:00:%02d" % (k + 10), "event": "async_rollout_request_complete",
                            "duration_sec": k + 1.5, "extra": {"request_id": rid, "turns": 1}}) + "\n")
PY
expect_exit 0 "$BUILD/rt-export" "$hostile" -o "$TMP/hostile.csv" --no-cache
duckdb "SELECT request_id FROM $("$BUILD/rt-export" --schema duckdb -o "$TMP/hostile.csv")"
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "hostile ids through DuckDB"
import json, sys
rows = json.loads(open(sys.argv[1]).readline())["rows"]
assert [r[0] for r in rows] == ["a,b", 'say "hi"', "line\nbreak\r\nx", '",\n,"', "=1+2", "NA", ""], rows
PY

# Usage: an unknown reader is refused, and without EXP the file is the table's name
expect_exit 2 "$BUILD/rt-export" --schema sqlite
expect_grep "rt-export: --schema: 'sqlite' is not duckdb, pandas or spark" "$TMP/err" "an unknown --schema"
expect_exit 0 "$BUILD/rt-export" --schema duckdb --table steps
expect_grep "^read_csv('steps.csv', header = true" "$TMP/out" "the default file without EXP"

echo "t-export-duckdb: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
