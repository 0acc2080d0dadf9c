#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-export-partition-pandas.sh: docs/export.md's pandas lines for a dataset of rt-export --partition
# step, run as written there on each table: the frame they make is the plain export read with
# `--schema pandas`, value for value and type for type, step last.
. "$(dirname "$0")/lib.sh"

need_pandas

# the lines: the indented block after "In pandas, which reads a file at a time" in docs/export.md
"$PYTHON" - "$SRC/docs/export.md" >"$TMP/docs.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"In pandas, which reads a file at a time[^\n]*\n\n((?:    [^\n]*\n|\n)+)", text)
print("".join(line[4:] + "\n" for line in m.group(1).rstrip("\n").split("\n")) if m else "")
PY
grep -q "read_csv" "$TMP/docs.py" && ok || fail "docs/export.md has no pandas lines after 'In pandas, which reads a file at a time'"

work="$TMP/work"
mkdir -p "$work"
for exp in "$SRC/fixtures/incomplete" "$SAMPLES/exp-v1" "$SAMPLES/exp-v2-damaged"; do
  rm -rf "$work/exp-dataset"
  (cd "$work" && "$BUILD/rt-export" "$exp" --partition step -o exp-dataset -q 2>/dev/null)
  [ $? -le 1 ] && ok || fail "rt-export $exp --partition step"
  for table in requests turns events steps workers; do
    "$BUILD/rt-export" "$exp" --table "$table" -o "$TMP/$table.csv" -q 2>/dev/null
    expect_exit 0 "$BUILD/rt-export" --schema pandas --table "$table"
    cp "$TMP/out" "$TMP/$table.dtype"
    # the docs' lines on this table: its folder in place of requests'
    sed "s|exp-dataset/requests/|exp-dataset/$table/|g" "$TMP/docs.py" >"$TMP/docs-$table.py"
    (cd "$work" && "$PANDAS_PY" - "$TMP/docs-$table.py" "$TMP/$table.csv" "$TMP/$table.dtype" <<'PY') \
      && ok || fail "pandas: the dataset's $table of $exp is not the plain export"
import json, sys
import pandas as pd
scope = {}
exec(open(sys.argv[1]).read(), scope)
r = scope["r"]
dtype = json.load(open(sys.argv[3]))
plain = pd.read_csv(sys.argv[2], dtype=dtype, keep_default_na=False, na_values=[""], float_precision="round_trip")
assert list(r.columns) == [c for c in plain.columns if c != "step"] + ["step"], list(r.columns)
assert {c: str(t) for c, t in r.dtypes.items()} == {c: str(t) for c, t in plain.dtypes.items()}, r.dtypes
# (an empty plain frame has an object index, the concatenation a range: the rows are what counts)
pd.testing.assert_frame_equal(r[list(plain.columns)], plain, check_exact=True, check_index_type=len(plain) > 0)
PY
  done
done

echo "t-export-partition-pandas: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
