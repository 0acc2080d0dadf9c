#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh: runs the libFuzzer targets of a fuzz build for a while each (make fuzz, make test).
# usage: tests/fuzz/run.sh FUZZ_BUILD SECONDS [TARGET...]   (targets: line cache trainlog)
set -u
BUILD=$(cd "${1:?usage: run.sh FUZZ_BUILD SECONDS [TARGET...]}" && pwd)
SECONDS_EACH=${2:?usage: run.sh FUZZ_BUILD SECONDS [TARGET...]}
shift 2
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(line cache trainlog)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$SRC/tests/fuzz"

# Seeds come from fixtures/ only (they are what CI has), made afresh on each run so
# that they follow the fixtures and the cache format.
seed_lines () {   # seed_lines OUT FILE...: each line, and each file whole
  local out=$1 f; shift
  mkdir -p "$out"
  for f in "$@"; do
    cp "$f" "$out/whole-$(echo "$f" | tr / _)"
    split -l 1 -a 3 "$f" "$out/line-$(echo "$f" | tr / _)-"
  done
}
make_seeds () {
  local t=$1 out="$BUILD/fuzz-seeds/$1"
  rm -rf "$out"
  case $t in
    line) seed_lines "$out" "$SRC"/fixtures/*/step_*/*.jsonl ;;
    trainlog) seed_lines "$out" "$SRC"/fixtures/train/*.log ;;
    cache)
      # the caches the loader writes for copies of the fixtures (see fuzz-cache.c)
      mkdir -p "$out"
      RT_FUZZ_CACHE_SEEDS="$out" "$BUILD/tests/fuzz/fuzz-cache" >/dev/null 2>&1 \
        || { echo "fuzz: cache: could not make the seed caches" >&2; return 1; } ;;
  esac
}

# The targets run side by side (each for SECONDS, the machine's cores shared), then each is
# reported in turn.
status=0
declare -A pid
for t in "${TARGETS[@]}"; do
  bin="$BUILD/tests/fuzz/fuzz-$t"
  [ -x "$bin" ] || { echo "fuzz: $bin is not built" >&2; exit 2; }
  make_seeds "$t" || { status=1; continue; }
  corpus="$BUILD/fuzz-corpus/$t"        # grows from run to run
  crashes="$BUILD/fuzz-crashes/$t"
  log="$BUILD/fuzz-logs/$t.log"
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
  args=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$crashes/")
  case $t in
    line) args+=(-max_len=8192 -dict="$HERE/line.dict") ;;
    trainlog) args+=(-max_len=4096 -dict="$HERE/trainlog.dict") ;;
    cache) args+=(-max_len=16384) ;;
  esac
  dirs=("$corpus" "$BUILD/fuzz-seeds/$t")
  for d in "$HERE/corpus/$t" "$HERE/regressions/$t"; do [ -d "$d" ] && dirs+=("$d"); done
  echo "fuzz: $t for ${SECONDS_EACH} s (log: $log)"
  "$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1 &
  pid[$t]=$!
done
for t in "${TARGETS[@]}"; do
  [ -n "${pid[$t]:-}" ] || continue
  wait "${pid[$t]}"
  rc=$?
  log="$BUILD/fuzz-logs/$t.log"
  crashes="$BUILD/fuzz-crashes/$t"
  # libFuzzer's last status line: runs, coverage (cov: edges, ft: features), speed
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  execs=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
  echo "fuzz: $t: ${last:-no status line} (${execs:-?} exec/s on average)"
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz: $t FAILED (exit $rc); the input is in $crashes/:" >&2
    grep -E 'ERROR: |SUMMARY: |rt-fuzz: invariant|^    #[0-9] ' "$log" | head -n 20 >&2
    echo "fuzz: reproduce with $BUILD/tests/fuzz/replay-$t FILE; minimise with $BUILD/tests/fuzz/fuzz-$t -minimize_crash=1 -runs=10000 FILE;" \
         "then add it to tests/fuzz/regressions/$t/" >&2
  fi
done
exit $status
