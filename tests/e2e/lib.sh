# lib.sh: shared helpers of the end-to-end scripts (sourced, not run).
# Each script gets BUILD and SRC folders as arguments and fails on the first broken expectation.
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
SHARED="$SRC/../shared"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rt-e2e.XXXXXX")
# every test run keeps its caches to itself
export XDG_CACHE_HOME="$TMP/cache"
trap 'rm -rf "$TMP"' EXIT
PASSED=0
FAILED=0

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

finish () {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}
