#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-export-partition-duckdb.sh: a dataset of rt-export --partition step read by DuckDB as one table
# per folder, through the read_csv of its _schema.duckdb.sql: the plain export's rows and types
# (step from the folders' names, last), WHERE step = N reading that folder's part alone, and
# docs/export.md's query on a dataset, as written there, giving rt-cdf's P99. DuckDB is the
# Node.js client `make bench-deps` installs into bench/node_modules; without it the test is skipped.
. "$(dirname "$0")/lib.sh"

need_duckdb

TABLES="requests turns events steps workers"
exp=$SAMPLES/exp-v2-damaged
ds="$TMP/it's a dataset"        # a quote in the path goes through the SQL literal
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$ds" -q
mkdir -p "$TMP/whole"

for table in $TABLES; do
  whole="$TMP/whole/$table.csv"
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" -o "$whole" -q
  expect_exit 0 "$BUILD/rt-export" --schema duckdb -o "$whole" -t "$table"
  plain=$(cat "$TMP/out")
  parts=$(cat "$ds/$table/_schema.duckdb.sql")
  # the plain export's columns, by name (the dataset has step last)
  cols=$(head -1 "$whole" | sed 's/\([a-z_0-9]*\)/"\1"/g')
  duckdb "DESCRIBE SELECT * FROM $parts" "DESCRIBE SELECT * FROM $plain" \
         "SELECT count(*) FROM $parts" \
         "SELECT count(*) FROM (SELECT $cols FROM $parts EXCEPT ALL SELECT $cols FROM $plain)" \
         "SELECT count(*) FROM (SELECT $cols FROM $plain EXCEPT ALL SELECT $cols FROM $parts)" \
         "SELECT step, count(*) FROM $plain GROUP BY step ORDER BY step"
  cp "$TMP/out" "$TMP/$table.json"
  "$PYTHON" - "$TMP/$table.json" "$whole" <<'PY' && ok || fail "$table: DuckDB reads the dataset other than the plain export"
import csv, json, sys
described, plain, count, extra, missing, steps = (json.loads(line) for line in open(sys.argv[1]))
rows = sum(1 for _ in csv.reader(open(sys.argv[2], newline="", encoding="utf-8"))) - 1
types = [(r[0], r[1]) for r in plain["rows"]]
assert [(r[0], r[1]) for r in described["rows"]] == [t for t in types if t[0] != "step"] + [("step", "BIGINT")], described
assert int(count["rows"][0][0]) == rows, (count, rows)
assert extra["rows"] == [["0"]] and missing["rows"] == [["0"]], (extra, missing)
assert sum(int(n) for _, n in steps["rows"]) == rows, steps
PY
  # WHERE step = N: that step's rows, from its one file (the others pruned by their folder's name)
  for sn in $("$PYTHON" -c 'import json, sys; print(" ".join(f"{s}:{n}" for s, n in json.loads(open(sys.argv[1]).readlines()[5])["rows"]))' "$TMP/$table.json"); do
    step=${sn%%:*} n=${sn#*:}
    duckdb "SELECT count(*), min(step), max(step) FROM $parts WHERE step = $step" \
           "EXPLAIN ANALYZE SELECT count(*) FROM $parts WHERE step = $step"
    expect_grep "^{\"columns\".*\"rows\":\[\[\"$n\",\"$step\",\"$step\"\]\]}" "$TMP/out" "$table WHERE step = $step"
    expect_grep "Total Files Read: 1 " "$TMP/out" "$table WHERE step = $step reads one file"
  done
done

# docs/export.md's query on a dataset: the first `duckdb -c "..."` after its heading "## A dataset
# partitioned by step", run where its `rt-export ... -o exp-dataset` wrote (build/ there the build
# under test): rt-cdf's P99 of the step it names
query_text=$("$PYTHON" - "$SRC/docs/export.md" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("\n## A dataset partitioned by step", 1)
m = re.search(r'duckdb -c "(.*?)"\n', section[1], re.S) if len(section) == 2 else None
print(m.group(1) if m else "")
PY
)
[ -n "$query_text" ] && ok || fail "docs/export.md has no duckdb -c \"...\" under '## A dataset partitioned by step'"
work="$TMP/work"
mkdir -p "$work"
ln -s "$BUILD" "$work/build"
(cd "$work" && build/rt-export "$exp" --partition step -o exp-dataset -q) && ok || fail "the docs' export"
query=$(cd "$work" && eval "printf '%s' \"$query_text\"")
expect_grep "hive_partitioning = true" <(printf '%s' "$query") "the docs' query with the dataset's read_csv"
cd "$work" || exit 1
duckdb "$query"
cd "$TMP" || exit 1
cp "$TMP/out" "$TMP/docs.json"
"$BUILD/rt-cdf" "$exp" --json --out "$TMP/plots" --no-render >"$TMP/cdf.json" 2>/dev/null
"$PYTHON" - "$TMP/docs.json" "$TMP/cdf.json" <<'PY' && ok || fail "the docs' query on the dataset"
import json, math, sys
got = json.loads(open(sys.argv[1]).readline())
cdf = {s["step"]: s for s in json.load(open(sys.argv[2]))["steps"]}
assert [c["name"] for c in got["columns"]][:3] == ["step", "requests", "p99_s"], got["columns"]
assert len(got["rows"]) == 1, got["rows"]
step, requests, p99 = got["rows"][0][:3]
want = cdf[int(step)]
assert int(requests) == want["count"] and math.isclose(p99, want["p99"], rel_tol=1e-12), (got["rows"], want)
PY

echo "t-export-partition-duckdb: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
