# SPDX-License-Identifier: Apache-2.0
# lib.sh: shared helpers of the end-to-end scripts (sourced, not run).
# Each script gets BUILD and SRC folders as arguments and fails on the first broken expectation.
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
# the two sample experiments of an independent generator, with their expected answers
SAMPLES="$SRC/fixtures/samples"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rt-e2e.XXXXXX")
# every test run keeps its caches to itself
export XDG_CACHE_HOME="$TMP/cache"
trap 'rm -rf "$TMP"' EXIT
PASSED=0
FAILED=0

# The analyzers, as the build lists them ($BUILD/rt-commands.tsv, written from CMakeLists.txt):
# EXP_ANALYZERS read an experiment folder, ALL_ANALYZERS are every one (rt-train too).
COMMANDS_TSV="$BUILD/rt-commands.tsv"
listed () { awk -F'\t' -v takes="$1" '!/^#/ && $1 != "name" && (takes == "" || $2 == takes) { print $1 }' "$COMMANDS_TSV" | tr '\n' ' '; }
# those of experiments that run on EXP alone (rt-whatif needs a policy: its own tests run it)
alone () { awk -F'\t' '!/^#/ && $1 != "name" && $2 == "EXP" && ($5 == "" || $5 == "-") { print $1 }' "$COMMANDS_TSV" | tr '\n' ' '; }
[ -s "$COMMANDS_TSV" ] || { echo "FAIL: $COMMANDS_TSV is missing: the build writes it from CMakeLists.txt"; exit 1; }
EXP_ANALYZERS=$(alone)
ALL_ANALYZERS=$(listed "")
[ -n "$EXP_ANALYZERS" ] || { echo "FAIL: $COMMANDS_TSV lists no analyzer of experiments"; exit 1; }

ok () { PASSED=$((PASSED + 1)); }
fail () { echo "FAIL: $*" >&2; FAILED=$((FAILED + 1)); }

# expect_exit CODE CMD...: runs CMD (stdout to $TMP/out, stderr to $TMP/err) and checks its status.
expect_exit () {
  local want=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else
    fail "exit $got, expected $want: $*"; sed 's/^/    stderr: /' "$TMP/err" | head -5 >&2; fi
}

# expect_eq GOT WANT LABEL
expect_eq () { if [ "$1" = "$2" ]; then ok; else fail "$3: got '$1', expected '$2'"; fi; }

# expect_json EXPECTED.json ACTUAL.json LABEL
expect_json () {
  if python3 "$SRC/tests/json-compare.py" "$1" "$2" >"$TMP/diff" 2>&1; then ok; else
    fail "$3 differs from $1:"; sed 's/^/    /' "$TMP/diff" | head -10 >&2; fi
}

# expect_grep PATTERN FILE LABEL
expect_grep () {
  if grep -q -- "$1" "$2"; then ok; else fail "$3: no '$1' in $(head -c 300 "$2")"; fi
}

# expect_answer ANALYZER EXP WANT_EXIT EXPECTED.json [ARGS...]: runs rt-ANALYZER EXP --json (plots
# neither written into the tree nor rendered) and compares its answer with EXPECTED.json.
expect_answer () {
  local analyzer=$1 exp=$2 want=$3 expected=$4; shift 4
  if [ "$analyzer" = check ]; then
    expect_exit "$want" "$BUILD/rt-check" "$exp" "$@" --json
  else
    expect_exit "$want" "$BUILD/rt-$analyzer" "$exp" "$@" --json --out "$TMP/plots" --no-render
  fi
  cp "$TMP/out" "$TMP/answer.json"
  expect_json "$expected" "$TMP/answer.json" "rt-$analyzer $* on $exp"
}

# PYTHON: the interpreter itself, not a version manager's shim (which costs ~0.2 s a start)
PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PYTHON=python3

# is_asan: is $BUILD built with AddressSanitizer? It reserves terabytes of virtual memory, so
# `ulimit -v` cannot bound it, and it runs about three times slower.
is_asan () {
  grep -q __asan_init "$BUILD/rt-check" 2>/dev/null && return 0
  case ${BUILD##*/} in *asan*) return 0 ;; esac
  return 1
}

# expect_safe CODES CMD...: runs CMD under `timeout 60` (stdout to $TMP/out, stderr to $TMP/err,
# status in $STATUS) and checks what every run on hostile input owes: no hang, no death by a
# signal, no sanitizer report, a status among CODES ("0", "0 1"...), and when the status is 1
# or 2 a stderr line starting with the command's name ("rt-cdf: ...").
STATUS=0
expect_safe () {
  local codes=$1; shift
  local name="" a bad=""
  for a in "$@"; do case ${a##*/} in rt-*) name=${a##*/}; break ;; esac; done
  timeout -k 5 60 "$@" >"$TMP/out" 2>"$TMP/err"
  STATUS=$?
  case $STATUS in
    124 | 137) bad="hung (stopped after 60 s) or killed" ;;
    *) [ "$STATUS" -gt 128 ] && bad="killed by signal $((STATUS - 128))" ;;
  esac
  if grep -q -a -e AddressSanitizer -e 'runtime error:' -e LeakSanitizer "$TMP/err"; then
    bad="${bad:+$bad, }sanitizer report"; fi
  case " $codes " in *" $STATUS "*) ;; *) bad="${bad:+$bad, }exit $STATUS, expected ${codes// / or }" ;; esac
  if [ "$STATUS" = 1 ] || [ "$STATUS" = 2 ]; then
    grep -q -a "^$name: " "$TMP/err" || bad="${bad:+$bad, }no '$name: ' line on stderr"; fi
  if [ -z "$bad" ]; then ok; else
    local shown="$*"; fail "$bad: ${shown//$'\n'/\\n}"; grep -a -m 8 . "$TMP/err" | cut -c 1-300 | sed 's/^/    stderr: /' >&2; fi
}

# expect_bounded CODES CMD...: expect_safe within 2 GiB of memory: under `ulimit -v 2097152` in
# a plain build; in an ASan build, whose shadow memory alone reserves terabytes of address space,
# by a peak RSS (/usr/bin/time) under 2 GiB instead.
expect_bounded () {
  local codes=$1; shift
  if is_asan; then
    expect_safe "$codes" /usr/bin/time -f '%M' -o "$TMP/rss" "$@"
    local kib; kib=$(tail -n 1 "$TMP/rss" 2>/dev/null)
    if [ "${kib:-0}" -gt 0 ] && [ "$kib" -lt 2097152 ]; then ok; else
      local shown="$*"; fail "peak RSS ${kib:-unknown} KiB, not under 2 GiB: ${shown//$'\n'/\\n}"; fi
  else
    expect_safe "$codes" bash -c 'ulimit -v 2097152 && exec "$@"' bash "$@"
  fi
}

# tree_state DIR: one line per entry under DIR (path, type, size, sha1; a link's target), to
# compare before and after a run. Files over 256 MiB (sparse hostile files) are hashed by
# their first and last MiB and their mtime, so that a listing stays quick.
tree_state () {
  "$PYTHON" - "$1" <<'PY'
import hashlib, os, sys
root = os.fsencode(sys.argv[1])
for dirpath, dirs, files in os.walk(root):
    for name in sorted(dirs + files):
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        st = os.lstat(path)
        if os.path.islink(path):
            print(rel, "link", os.readlink(path))
        elif os.path.isdir(path):
            print(rel, "dir")
        else:
            h = hashlib.sha1()
            with open(path, "rb") as f:
                if st.st_size <= 256 << 20:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                else:
                    h.update(f.read(1 << 20)); f.seek(-(1 << 20), 2); h.update(f.read())
                    h.update(str(st.st_mtime_ns).encode())
            print(rel, "file", st.st_size, h.hexdigest())
PY
}

# expect_tree_unchanged STATE DIR LABEL: DIR still matches the tree_state listing in file STATE
expect_tree_unchanged () {
  tree_state "$2" >"$TMP/tree-now"
  if cmp -s "$1" "$TMP/tree-now"; then ok; else
    fail "$3: the tree changed:"; diff "$1" "$TMP/tree-now" | head -8 | sed 's/^/    /' >&2; fi
}

# expect_no_temps DIR LABEL: after a run an output or cache folder holds only final files: no
# hidden temporary (.NAME), no *.tmp*, no empty file. A missing DIR holds nothing.
expect_no_temps () {
  local left
  left=$(find "$1" -mindepth 1 \( -name '.*' -o -name '*.tmp*' -o \( -type f -empty \) \) 2>/dev/null | head -5)
  if [ -z "$left" ]; then ok; else fail "$2: left in $1: $(echo "$left" | tr '\n' ' ')"; fi
}

# expect_only_rtc DIR LABEL: a cache folder holds nothing but *.rtc files
expect_only_rtc () {
  local left
  left=$(find "$1" -mindepth 1 ! -name '*.rtc' 2>/dev/null | head -5)
  if [ -z "$left" ]; then ok; else fail "$2: not a cache file, in $1: $(echo "$left" | tr '\n' ' ')"; fi
}

# expect_whole_cache EXP DIR LABEL [LEFTOVER]: DIR holds caches only, none torn: one *.rtc (and
# its delta, if any), which rt-check on EXP uses whole (no file read again); with LEFTOVER (a name
# pattern), a write killed after its file was complete and named may have left that name beside it
expect_whole_cache () {
  local left
  left=$(find "$2" -mindepth 1 ! -name '*.rtc' ! -name '*.rtc-delta' ${4:+! -name "$4"} 2>/dev/null | head -3)
  [ -z "$left" ] && ok || fail "$3: not a cache, in the cache folder: $left"
  [ "$(find "$2" -name '*.rtc' | wc -l)" = 1 ] && ok || fail "$3: not one cache in $(ls -A "$2")"
  expect_safe 0 "$BUILD/rt-check" "$1" --json --cache-dir "$2"
  "$PYTHON" -c 'import json, sys
c = json.load(open(sys.argv[1]))["cache"]
sys.exit(0 if c["used"] and c["rejected"] is None and c["files_parsed"] == 0 and c["files_resumed"] == 0 else 1)' \
    "$TMP/out" && ok || fail "$3: the cache left is not used whole: $(head -c 300 "$TMP/out")"
}

# expect_json_doc FILE LABEL: FILE holds exactly one JSON document in valid UTF-8 (strict
# decoding), and none of its strings holds a lone surrogate (an escaped invalid byte)
expect_json_doc () {
  if "$PYTHON" - "$1" >"$TMP/diff" 2>&1 <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
try:
    doc = json.loads(raw.decode("utf-8"))
except (UnicodeDecodeError, json.JSONDecodeError) as e:
    sys.exit(f"not one UTF-8 JSON document ({e}): {raw[:120]!r}")
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(k); walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
    elif isinstance(v, str):
        v.encode("utf-8")          # fails on a lone surrogate
try:
    walk(doc)
except UnicodeEncodeError as e:
    sys.exit(f"a string with a lone surrogate: {e}")
PY
  then ok; else fail "$2: $(head -c 300 "$TMP/diff")"; fi
}

# expect_whole DIR OLD NEW LABEL: every file in DIR is whole: byte for byte its version in OLD
# (a folder from an earlier complete run, may be missing) or in NEW (the complete run of the
# same command), and DIR holds no temporary
expect_whole () {
  "$PYTHON" - "$@" <<'PY' && ok || fail "$4: a file in $1 is neither the earlier one nor a complete new one"
import filecmp, os, sys
folder, old, new = sys.argv[1:4]
bad = []
for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
    path = os.path.join(folder, name)
    if not any(os.path.isfile(os.path.join(d, name)) and filecmp.cmp(path, os.path.join(d, name), shallow=False)
               for d in (old, new)):
        bad.append(f"{name} ({os.path.getsize(path)} bytes)")
if bad:
    print("    not whole:", ", ".join(bad[:6]), file=sys.stderr)
    sys.exit(1)
PY
  expect_no_temps "$1" "$4"
}

# expect_same_answer A.json B.json LABEL: two --json answers are the same, but for their "cache"
# key (numbers to 1e-9 relative: two trees of the same data may sum in another order)
expect_same_answer () {
  if "$PYTHON" - "$1" "$2" >"$TMP/diff" 2>&1 <<'PY'
import json, math, sys
def load(path):
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    if isinstance(doc, dict):
        doc.pop("cache", None)
    return doc
def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
                and not isinstance(b, bool) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))
    return a == b and type(a) is type(b)
a, b = load(sys.argv[1]), load(sys.argv[2])
if not same(a, b):
    keys = sorted(set(a) | set(b)) if isinstance(a, dict) and isinstance(b, dict) else None
    for key in keys or []:
        if not same(a.get(key), b.get(key)):
            print(f"{key}: {json.dumps(a.get(key))[:150]} != {json.dumps(b.get(key))[:150]}")
    if keys is None:
        print(f"{json.dumps(a)[:150]} != {json.dumps(b)[:150]}")
    sys.exit(1)
PY
  then ok; else fail "$3:"; sed 's/^/    /' "$TMP/diff" | head -6 >&2; fi
}

# analyzer_queries [NAME=ARGS]...: sets QUERIES to one query ("NAME ARGS") per analyzer of
# experiments the build lists, in its order: NAME alone, or, for a NAME given here, one query
# per NAME=ARGS ("rt-workers=" is rt-workers alone). A NAME the build does not list fails.
analyzer_queries () {
  local a spec given extra
  QUERIES=()
  for spec in "$@"; do
    case " $EXP_ANALYZERS " in *" ${spec%%=*} "*) ;; *) fail "no analyzer ${spec%%=*} in $COMMANDS_TSV" ;; esac
  done
  for a in $EXP_ANALYZERS; do
    given=0
    for spec in "$@"; do
      [ "${spec%%=*}" = "$a" ] || continue
      given=1 extra=${spec#*=}
      QUERIES+=("$a${extra:+ $extra}")
    done
    [ "$given" = 1 ] || QUERIES+=("$a")
  done
}

# expect_covered WHAT NAME...: every analyzer the build lists is among NAME... (for the tests
# whose checks are written per analyzer: a new analyzer needs its own there)
expect_covered () {
  local what=$1 a; shift
  for a in $ALL_ANALYZERS; do
    # a command that takes no argument (rt-cache: the cache folder) reads no trace, draws no plot
    case " $(listed NONE) " in *" $a "*) continue ;; esac
    case " $* " in *" $a "*) ok ;; *) fail "$what: nothing here for $a, which the build lists" ;; esac
  done
}

# need_pandas: sets PANDAS_PY to a python3 that imports pandas (Debian's python3-pandas is for
# /usr/bin/python3, which need not be the python3 first on PATH); without one the test checks
# nothing and says so (ctest: skipped, code 77)
need_pandas () {
  PANDAS_PY=""
  for py in "$PYTHON" /usr/bin/python3; do
    "$py" -c 'import pandas' 2>/dev/null && { PANDAS_PY=$py; return; }
  done
  echo "SKIP: $(basename "$0" .sh) needs pandas (make deps installs python3-pandas for /usr/bin/python3)"
  exit 77
}

# need_duckdb: DuckDB is the Node.js client `make bench-deps` installs into bench/node_modules;
# without it (or node) the test is skipped (code 77). Then `duckdb SQL...` puts each statement's
# result, as a JSON line, in $TMP/out.
need_duckdb () {
  if ! command -v node >/dev/null || [ ! -d "$SRC/bench/node_modules/@duckdb/node-api" ]; then
    echo "SKIP: $(basename "$0" .sh) needs node and DuckDB's client (make bench-deps installs it into bench/node_modules)"
    exit 77
  fi
}
duckdb () { expect_exit 0 node "$SRC/tests/duckdb-query.mjs" "$SRC/bench" "$@"; }

finish () {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}
