#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-export-pandas.sh: every table of rt-export read by pandas with the dtype of `rt-export --schema
# pandas`: each column has its declared type (whole numbers the nullable Int64, times float64, texts
# string, `complete` boolean), a request that never completed keeps `turns` whole numbers, and an
# all-empty column of an older-logger export is still float64.
. "$(dirname "$0")/lib.sh"

need_pandas

# fixtures/incomplete: request c was cut off (no complete line); samples/exp-v1: the older logger,
# whose rows leave response_length and every EVENT_s column empty
for exp in "$SRC/fixtures/incomplete" "$SAMPLES/exp-v1" "$SRC/fixtures/hand-v2"; do
  name=$(basename "$exp")
  mkdir -p "$TMP/$name"
  for table in requests turns events steps workers; do
    "$BUILD/rt-export" "$exp" --table "$table" -o "$TMP/$name/$table.csv" -q 2>/dev/null
    status=$?
    [ $status -le 1 ] && ok || fail "rt-export $exp --table $table: exit $status"
    expect_exit 0 "$BUILD/rt-export" --schema pandas --table "$table"
    cp "$TMP/out" "$TMP/$name/$table.dtype"
  done
done

"$PANDAS_PY" - "$TMP" <<'PY' && ok || fail "pandas read the export with other types"
import csv, json, os, sys
import pandas as pd
root = sys.argv[1]
TEXT = {"request_id", "finish_reason", "event", "source", "file"}

def expected(table, column):
    """The type each column must read as, by what the column holds (docs/export.md)."""
    if column in TEXT:
        return "string"
    if column == "complete" and table == "requests":
        return "boolean"
    if column.endswith("_s"):
        return "float64"
    return "Int64"

def read(exp, table):
    path = f"{root}/{exp}/{table}.csv"
    dtype = json.load(open(f"{root}/{exp}/{table}.dtype"))
    header = next(csv.reader(open(path, newline="", encoding="utf-8")))
    assert list(dtype) == header, (exp, table, list(dtype), header)
    df = pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values=[""], float_precision="round_trip")
    for column in header:
        assert str(df[column].dtype) == expected(table, column), (exp, table, column, str(df[column].dtype))
    return df, path

for exp in ("incomplete", "exp-v1", "hand-v2"):
    for table in ("requests", "turns", "events", "steps", "workers"):
        df, path = read(exp, table)
        # every value reads back as the text of the file says
        raw = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
        assert len(raw) == len(df), (exp, table)
        for i, row in enumerate(raw):
            for column, text in row.items():
                v = df[column].iloc[i]
                if text == "" and expected(table, column) != "string":
                    assert pd.isna(v), (exp, table, column, i, v)
                elif expected(table, column) == "Int64":
                    assert v == int(text), (exp, table, column, i, v, text)
                elif expected(table, column) == "boolean":
                    assert bool(v) == (text == "1"), (exp, table, column, i, v, text)
                elif expected(table, column) == "float64":
                    assert v == float(text), (exp, table, column, i, v, text)

# the cut-off request: its turns and response_length unknown, the others' still whole numbers
r, _ = read("incomplete", "requests")
assert list(r.request_id) == ["a", "b", "c"], list(r.request_id)
assert list(r.complete) == [True, True, False], list(r.complete)
assert r.turns.iloc[:2].tolist() == [1, 2] and pd.isna(r.turns.iloc[2]), r.turns.tolist()
assert r.response_length.iloc[:2].tolist() == [120, 300] and pd.isna(r.response_length.iloc[2])
assert r.turns.sum() == 3 and r[r.complete].lines.tolist() == [3, 4]
# the older logger: columns empty in every row are numbers all the same, and sum to 0
v1, _ = read("exp-v1", "requests")
assert v1.response_length.isna().all() and v1.tool_execution_s.isna().all()
assert v1.tool_execution_s.sum() == 0 and v1[v1.complete == 1].duration_s.count() == len(v1)
PY

echo "t-export-pandas: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
