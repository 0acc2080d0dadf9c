#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-export-partition.sh: rt-export --partition step writes DIR/TABLE/step=N/part.csv.gz for every
# table and step, with the schema files beside; the parts, gunzipped, hold the rows of the plain
# export, step by step, without the step column; an export again after a step was appended adds
# its parts and leaves the others' files as they were, rewriting a step whose rows changed.
. "$(dirname "$0")/lib.sh"

TABLES="requests turns events steps workers"

# check_parts DS WHOLE_DIR: each table's parts, in step order, are the plain export's rows of that
# step without the step column (train_step, with --train, stays in the file as in the plain one)
check_parts () {
  "$PYTHON" - "$1" "$2" $TABLES <<'PY'
import csv, gzip, io, os, re, sys
ds, whole_dir, tables = sys.argv[1], sys.argv[2], sys.argv[3:]
for table in tables:
    with open(f"{whole_dir}/{table}.csv", newline="", encoding="utf-8") as f:
        whole = list(csv.reader(f, strict=True))
    header, rows = whole[0], whole[1:]
    at = header.index("step")
    by_step = {}
    for r in rows:
        by_step.setdefault(int(r[at]), []).append(r[:at] + r[at + 1:])
    tdir = f"{ds}/{table}"
    folders = sorted(int(re.fullmatch(r"step=(-?\d+)", d).group(1)) for d in os.listdir(tdir) if not d.startswith("_"))
    assert set(by_step) <= set(folders), (table, sorted(by_step), folders)
    for step in folders:
        text = gzip.open(f"{tdir}/step={step}/part.csv.gz", "rb").read().decode("utf-8")
        part = list(csv.reader(io.StringIO(text, newline=""), strict=True))
        assert part[0] == header[:at] + header[at + 1:], (table, step, part[0])
        assert part[1:] == by_step.get(step, []), (table, step, len(part) - 1, len(by_step.get(step, [])))
PY
}

# A synthetic experiment of four steps, three of them first; hostile ids go through a part too
synth="$TMP/synth"
"$BUILD/rt-synth" "$synth" --steps 4 --workers 2 --requests 5 --seed 11 --faults --console-log "$TMP/train.log" -q
exp="$TMP/exp"
mkdir -p "$exp"
cp -r "$synth/step_1" "$synth/step_2" "$synth/step_3" "$exp/"

ds="$TMP/ds"
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$ds" --json
cp "$TMP/out" "$TMP/first.json"
"$PYTHON" - "$TMP/first.json" "$ds" $TABLES <<'PY' && ok || fail "the layout of the dataset"
import json, os, sys
doc, ds, tables = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
assert doc["dir"] == ds and doc["partition"] == "step", doc
assert [t["table"] for t in doc["tables"]] == tables, doc
assert sorted(os.listdir(ds)) == sorted(tables), os.listdir(ds)
for t in doc["tables"]:
    tdir = f"{ds}/{t['table']}"
    assert t["dir"] == tdir and t["parts"] == 3 and t["parts_written"] == 3, t
    assert sorted(os.listdir(tdir)) == ["_schema.duckdb.sql", "_schema.pandas.json", "_schema.spark.ddl",
                                        "step=1", "step=2", "step=3"], os.listdir(tdir)
    for step in (1, 2, 3):
        assert os.listdir(f"{tdir}/step={step}") == ["part.csv.gz"], os.listdir(f"{tdir}/step={step}")
    assert t["bytes"] == sum(os.path.getsize(f"{tdir}/step={s}/part.csv.gz") for s in (1, 2, 3)), t
PY

# The rows: those of the plain export, step by step
mkdir -p "$TMP/whole"
for table in $TABLES; do
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" -o "$TMP/whole/$table.csv" -q
done
check_parts "$ds" "$TMP/whole" && ok || fail "the parts are not the plain export's rows, step by step"
for table in $TABLES; do
  rows=$(tail -n +2 "$TMP/whole/$table.csv" | "$PYTHON" -c 'import csv, sys; print(sum(1 for _ in csv.reader(sys.stdin)))')
  grep -q "\"table\": \"$table\", \"dir\": \"[^\"]*\", \"rows\": $rows," "$TMP/first.json" && ok \
    || fail "--json rows of $table are not the plain export's $rows"
done

# The schema files are what --schema prints for the dataset, without reading the experiment
for table in $TABLES; do
  for schema in duckdb:duckdb.sql pandas:pandas.json spark:spark.ddl; do
    expect_exit 0 "$BUILD/rt-export" --schema "${schema%%:*}" --partition step -o "$ds" -t "$table"
    cmp -s "$TMP/out" "$ds/$table/_schema.${schema#*:}" && ok || fail "$table/_schema.${schema#*:} is not --schema's"
  done
done
expect_grep "^read_csv('$ds/events/\*/\*.csv.gz', header = true" "$ds/events/_schema.duckdb.sql" "DuckDB reads the glob"
expect_grep "hive_partitioning = true, hive_types = {'step': 'BIGINT'}" "$ds/events/_schema.duckdb.sql" "step from the folders"
expect_grep ", duration_s DOUBLE, step BIGINT$" "$ds/events/_schema.spark.ddl" "Spark's step last"
expect_grep "complete INT," "$ds/requests/_schema.spark.ddl" "Spark reads 0/1 as INT"
if grep -q '"step"' "$ds/requests/_schema.pandas.json"; then fail "pandas' dtype names step, which no part holds"; else ok; fi

# Again on the same steps: nothing is rewritten (the same file, the same time)
stamps () { find "$ds" -type f -printf '%p %i %T@\n' | sort; }
stamps >"$TMP/stamps-1"
sleep 1
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$ds" --json
grep -o '"parts_written": [0-9]*' "$TMP/out" | sort -u >"$TMP/written"
[ "$(cat "$TMP/written")" = '"parts_written": 0' ] && ok || fail "an export again rewrote parts: $(cat "$TMP/out")"
stamps >"$TMP/stamps-2"
cmp -s "$TMP/stamps-1" "$TMP/stamps-2" && ok || fail "an export again touched files: $(diff "$TMP/stamps-1" "$TMP/stamps-2" | head -5)"

# A step appended: its parts are added; steps 1 and 2 stay the same files. Step 3 of the steps
# table changes (its interval_s to the next step's start is known now): that part alone is
# rewritten, whole.
cp -r "$synth/step_4" "$exp/"
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$ds" --json
cp "$TMP/out" "$TMP/second.json"
stamps >"$TMP/stamps-3"
"$PYTHON" - "$TMP/stamps-2" "$TMP/stamps-3" "$TMP/second.json" "$ds" <<'PY' && ok || fail "the export after a step was appended"
import json, sys
def read(path):
    return dict(line.rsplit(" ", 2)[0:1] + [tuple(line.split()[-2:])] for line in open(path))
before, after, doc, ds = read(sys.argv[1]), read(sys.argv[2]), json.load(open(sys.argv[3])), sys.argv[4]
new = sorted(set(after) - set(before))
assert new == sorted(f"{ds}/{t}/step=4/part.csv.gz" for t in ("requests", "turns", "events", "steps", "workers")), new
changed = sorted(p for p in before if after.get(p) != before[p])
assert changed == [f"{ds}/steps/step=3/part.csv.gz"], changed
for t in doc["tables"]:
    assert t["parts"] == 4 and t["parts_written"] == (2 if t["table"] == "steps" else 1), t
PY
for table in $TABLES; do
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" -o "$TMP/whole/$table.csv" -q
done
check_parts "$ds" "$TMP/whole" && ok || fail "after the appended step, the parts are not the plain export's rows"
[ -z "$(find "$ds" -name '.*')" ] && ok || fail "a temporary is left: $(find "$ds" -name '.*')"

# --steps: only those steps' parts are written, the others left alone; --table: that table only
ds2="$TMP/ds2"
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$ds2" --steps 2-3 -t workers
[ "$(cd "$ds2" && find . -name '*.gz' | sort | tr '\n' ' ')" = "./workers/step=2/part.csv.gz ./workers/step=3/part.csv.gz " ] \
  && ok || fail "--steps 2-3 -t workers wrote $(cd "$ds2" && find . -type f)"
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$ds2" --steps 4 -t workers --json
expect_grep '"parts": 1, "parts_written": 1' "$TMP/out" "one step more"
[ "$(find "$ds2/workers" -name 'part.csv.gz' | wc -l)" -eq 3 ] && ok || fail "--steps 4 removed other parts"

# --train: the parts end in train_step, as the plain export does
for table in $TABLES; do
  expect_exit 0 "$BUILD/rt-export" "$exp" -t "$table" -o "$TMP/whole/$table.csv" -q --train "$TMP/train.log"
done
expect_exit 0 "$BUILD/rt-export" "$exp" --partition step -o "$TMP/ds-train" -q --train "$TMP/train.log"
check_parts "$TMP/ds-train" "$TMP/whole" && ok || fail "--train: the parts are not the plain export's rows"
[ "$(zcat "$TMP/ds-train/requests/step=1/part.csv.gz" | head -1 | tr ',' '\n' | tail -1)" = train_step ] && ok \
  || fail "--train: no train_step in a part"
expect_exit 0 "$BUILD/rt-export" --schema spark --partition step -o "$TMP/ds-train" --train "$TMP/train.log"
expect_grep ", train_step BIGINT, step BIGINT$" "$TMP/out" "--train: Spark's schema"

# Usage: another key, no -o, a file for -o; nothing is written
expect_exit 2 "$BUILD/rt-export" "$exp" --partition worker -o "$TMP/ds3"
expect_grep "rt-export: --partition: 'worker' is not step" "$TMP/err" "another partition key"
(cd "$TMP" && "$BUILD/rt-export" "$exp" --partition step) >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && ok || fail "--partition without -o is not a usage error"
expect_grep "rt-export: --partition step writes a dataset folder: name it with -o DIR" "$TMP/err" "-o missing"
[ ! -e "$TMP/rt-out" ] && ok || fail "--partition without -o wrote $TMP/rt-out"
# ...while -o naming the very folder the default would be is a folder like any other
name=$(basename "$exp")
(cd "$TMP" && "$BUILD/rt-export" "$exp" --partition step -o "rt-out/$name" -q) >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && [ -d "$TMP/rt-out/$name/requests" ] && ok || fail "-o rt-out/$name (the default's name) was refused"
rm -rf "$TMP/rt-out"
for out in - "$TMP/x.csv" "$TMP/x.csv.gz"; do
  expect_exit 2 "$BUILD/rt-export" "$exp" --partition step -o "$out"
  expect_grep "writes a folder of files, not one" "$TMP/err" "-o $out"
done
expect_exit 2 "$BUILD/rt-export" --schema duckdb --partition step
expect_grep "name it with -o DIR" "$TMP/err" "--schema --partition without -o"
[ ! -e "$TMP/ds3" ] && [ ! -e "$TMP/x.csv" ] && ok || fail "a refused export wrote something"

# A write that fails (a size limit) leaves no part, whole or not, of the step it was writing
mkdir -p "$TMP/small"
( trap '' XFSZ; ulimit -f 4; "$BUILD/rt-export" "$exp" --partition step -o "$TMP/small" -t events ) >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && ok || fail "a failed write is not exit 1"
expect_grep "rt-export: " "$TMP/err" "a failed write"
[ -z "$(find "$TMP/small" -name '.*')" ] && ok || fail "a failed write left $(find "$TMP/small" -name '.*')"
"$PYTHON" - "$TMP/small/events" <<'PY' && ok || fail "a failed write left a part that is not whole, or an empty folder"
import gzip, os, sys
for d in os.listdir(sys.argv[1]):
    if d.startswith("step="):
        gzip.open(f"{sys.argv[1]}/{d}/part.csv.gz").read()      # a cut gzip stream raises EOFError
PY

echo "t-export-partition: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
