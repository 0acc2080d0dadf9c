#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh: the speed and memory benchmark. Generates 1M- and 10M-line experiments with rt-synth,
# then times reading them (first load, cached load, every analyzer, make plots) against a plain
# `cat` of the tree and the Python baseline (bench/baseline_cdf.py), all in the same run.
#
#   bench/run.sh                 both sizes (about 10 minutes; the 10M tree takes 2.7 GB)
#   SIZES=1M bench/run.sh        only the small one
#   RUNS=9 BASELINE_RUNS=5 ...   more runs (medians are reported; defaults 5 and 3)
#   BENCH_DIR=/data/bench ...    where the trees go (default /tmp/rolltrace-bench)
#   TRAIN_LOG_MB=1000 ...        size of the trainer console log for rt-train (0: skip)
#   ONLY=versus bench/run.sh     only the side by side with DuckDB (below)
#   ONLY=cached bench/run.sh     only every analyzer from its cache against its own first load
#   ONLY=tail bench/run.sh       only rt-tail and rt-whatif against rt-cdf, from one cache (issue 30)
#   SIZES=100M bench/run.sh      the tree past RAM (issue 31): 104M lines, 31 GB, written by
#                                rt-synth (skipped with a message when BENCH_DIR has less than
#                                45 GB free); one table, RUNS_100M runs each (default 2)
#                                (SIZE=100m is read as SIZES=100M)
#
# Every figure is the median of RUNS runs (BASELINE_RUNS for the slow Python baseline on the
# 10M tree), wall seconds of the whole process, and its peak RSS in one more run under
# /usr/bin/time (bench/measure.py says why), with the page cache warm.
#
# Side by side with DuckDB, the tool a user would reach for instead: when `node` and the
# `@duckdb/node-api` package are there (`make bench-deps` installs the package into
# bench/node_modules), the same question, per-step request-duration quantiles, asked of both
# (bench/duckdb-quantiles.mjs is DuckDB's query, rt-cdf --json rolltrace's) in rotating order
# (bench/interleave.py), beside the read floor; then the two answers are compared.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-$ROOT/build}
BENCH_DIR=${BENCH_DIR:-/tmp/rolltrace-bench}
RUNS=${RUNS:-5}
BASELINE_RUNS=${BASELINE_RUNS:-3}
SIZES=${SIZES:-"1M 10M"}
if [ -n "${SIZE:-}" ]; then SIZES=${SIZE^^}; fi
mkdir -p "$BENCH_DIR"

for tool in /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is needed (apt-get install time python3)" >&2; exit 1; }
done
[ -x "$BUILD/rt-check" ] && [ -r "$BUILD/rt-commands.tsv" ] || { echo "bench: build first (make)" >&2; exit 1; }

# analyzers [plots]: the analyzers of experiments as the build lists them (with "plots", those
# that write plots: rt-check, which writes none, is timed as the load itself), each on a line
# with the arguments after EXP that a command needing some takes in its example (rt-whatif:
# policies)
analyzers () {
  awk -F'\t' -v plots="${1:-}" '!/^#/ && $2 == "EXP" && (plots == "" || $3 != "-") {
    args = ""; if ($5 != "-") { args = $3; sub(/^EXP */, "", args) }
    print $1 "\t" args }' "$BUILD/rt-commands.tsv"
}

# measure LABEL RUNS CMD...: prints "LABEL<TAB>median wall s<TAB>median peak RSS MiB"
measure () {
  python3 bench/measure.py "$@" || exit 1
}

report () {   # report SIZE BYTES RESULTS: the table with MB/s and ratios
  python3 - "$1" "$2" "$3" <<'PY'
import sys
size, nbytes, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(path)]
t = {label: (float(w), float(m)) for label, w, m in rows}
cat, base = t["cat > /dev/null"][0], t["python baseline (json.loads)"][0]
mb = nbytes / 1e6
print(f"\n{size} lines, {mb:.0f} MB of JSONL")
print(f"{'what':44} {'median s':>9} {'MB/s':>8} {'peak MiB':>9} {'RSS/JSONL':>9} {'x baseline':>10} {'/ cat':>7}")
for label, w, m in rows:
    w, m = float(w), float(m)
    print(f"{label:44} {w:9.3f} {mb / w:8.0f} {m:9.1f} {100 * m * 1048576 / nbytes:8.1f}% {base / w:10.1f} {w / cat:7.2f}")
first = t["first load + cache write (rt-check)"][0]
print(f"cached load: {first / t['cached load (rt-check)'][0]:.1f}x faster than the first load with its cache write, "
      f"{t['first load (rt-check --no-cache)'][0] / t['cached load (rt-check)'][0]:.1f}x than parsing alone")
PY
}

# tail_vs_cdf SIZE EXP: issue 30's target, side by side in rotating order (bench/interleave.py):
# from one cache, rt-tail and rt-whatif (its example's policies) take at most 3x a cached rt-cdf
tail_vs_cdf () {
  local size=$1 exp=$2 cache="$BENCH_DIR/cache-tail-$size" out="$BENCH_DIR/tail-$size" policies
  policies=$(analyzers | awk -F'\t' '$1 == "rt-whatif" { print $2 }')
  rm -rf "$cache"
  "$BUILD/rt-cdf" "$exp" --cache-dir "$cache" --quiet --no-render --out "$out" >/dev/null
  sync
  # shellcheck disable=SC2016   # (expanded by interleave.py's shell)
  python3 bench/interleave.py "$((RUNS * 3))" \
    "rt-cdf=exec '$BUILD/rt-cdf' '$exp' --cache-dir '$cache' --quiet --no-render --out '$out'" \
    "rt-tail=exec '$BUILD/rt-tail' '$exp' --cache-dir '$cache' --quiet --no-render --out '$out'" \
    "rt-whatif $policies=exec '$BUILD/rt-whatif' '$exp' $policies --cache-dir '$cache' --quiet --no-render --out '$out'" \
    >"$BENCH_DIR/results-tail-$size.tsv"
  python3 - "$size" "$BENCH_DIR/results-tail-$size.tsv" <<'PY'
import sys
size, path = sys.argv[1], sys.argv[2]
rows = [line.rstrip("\n").split("\t") for line in open(path)]
cdf_wall, cdf_cpu = float(rows[0][1]), float(rows[0][3])
print(f"\nfrom the cache, side by side, {size} lines (rotating order, medians; issue 30: at most 3x rt-cdf)")
print(f"{'command':48} {'wall s':>8} {'CPU s':>8} {'MiB':>7} {'x rt-cdf wall':>14} {'CPU':>6}")
for label, wall, mib, cpu in rows:
    wall, mib, cpu = float(wall), float(mib), float(cpu)
    print(f"{label:48} {wall:8.4f} {cpu:8.4f} {mib:7.1f} {wall / cdf_wall:13.2f}x {cpu / cdf_cpu:5.2f}x")
PY
}

# versus SIZE EXP: rolltrace and DuckDB side by side on EXP, and whether their answers agree
versus () {
  local size=$1 exp=$2 bytes cache="$BENCH_DIR/cache-versus-$size" out="$BENCH_DIR/versus-$size"
  if ! command -v node >/dev/null; then
    echo; echo "side by side with DuckDB, $size: skipped: node is not installed (apt-get install nodejs npm; make bench-deps)"
    return
  fi
  if ! (cd bench && node -e "require.resolve('@duckdb/node-api')" 2>/dev/null); then
    echo; echo "side by side with DuckDB, $size: skipped: @duckdb/node-api is not installed (make bench-deps)"
    return
  fi
  bytes=$(du -sb "$exp" | cut -f1)
  mkdir -p "$out"
  rm -rf "$cache"
  "$BUILD/rt-cdf" "$exp" --quiet --cache-dir "$cache" --no-render --out "$out" >/dev/null
  python3 bench/interleave.py "$RUNS" \
    "read floor (find -exec cat)=exec find '$exp' -name 'worker_*.jsonl' -exec cat {} +" \
    "rt-cdf --no-cache --no-render --json=exec '$BUILD/rt-cdf' '$exp' --quiet --no-cache --no-render --json --out '$out'" \
    "rt-cdf from its cache=exec '$BUILD/rt-cdf' '$exp' --quiet --cache-dir '$cache' --no-render --json --out '$out'" \
    "DuckDB, 2 threads (node bench/duckdb-quantiles.mjs)=exec node bench/duckdb-quantiles.mjs '$exp' 2" \
    "DuckDB start only (node, library, SELECT 1)=exec node bench/duckdb-quantiles.mjs --start-only" \
    >"$BENCH_DIR/results-versus-$size.tsv"
  python3 - "$size" "$bytes" "$BENCH_DIR/results-versus-$size.tsv" <<'PY'
import sys
size, nbytes, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(path)]
duck = next(float(w) for label, w, m, c in rows if label.startswith("DuckDB, 2"))
print(f"\nside by side with DuckDB, {size} lines, {nbytes / 1e6:.0f} MB (rotating order, medians)")
print(f"{'what':52} {'median s':>9} {'CPU s':>7} {'peak MiB':>9} {'/ DuckDB':>9}")
for label, w, m, c in rows:
    print(f"{label:52} {float(w):9.3f} {float(c):7.3f} {float(m):9.1f} {float(w) / duck:9.2f}")
PY
  "$BUILD/rt-cdf" "$exp" --quiet --no-cache --no-render --json --out "$out" >"$out/rt-cdf.json"
  node bench/duckdb-quantiles.mjs "$exp" 2 >"$out/duckdb.json"
  echo -n "answers: "
  python3 bench/compare-cdf.py "$out/rt-cdf.json" "$out/duckdb.json" 1e-12 || echo "bench: rt-cdf and DuckDB DISAGREE on $exp"
}

# cached_vs_first SIZE EXP: every analyzer of experiments, from its cache and with --no-cache,
# the two runs alternating; the ratio says how much the cache saves each command (issue 16 asks
# for 50x). Plots are not rendered (gnuplot's time is not the load's); rt-export and rt-trace
# write their file, which is what they are for.
cached_vs_first () {
  local size=$1 exp=$2 cache="$BENCH_DIR/cache-each-$size" out="$BENCH_DIR/each-$size" a args
  mkdir -p "$out"
  : >"$BENCH_DIR/results-each-$size.tsv"
  while IFS=$'\t' read -r a needed; do
    case $a in
      rt-check) args="--quiet" ;;
      rt-export) args="--quiet -o '$out/export.csv'" ;;
      rt-trace) args="--quiet -o '$out/trace.json'" ;;
      *) args="$needed --quiet --no-render --out '$out/$a'" ;;
    esac
    rm -rf "$cache"
    sh -c "exec '$BUILD/$a' '$exp' --cache-dir '$cache' $args" >/dev/null
    # timed once the cache is on disk, as a user's is: while the kernel still writes a fresh
    # 300 MB cache back, a cached run of the 10M tree takes some 15 % more CPU
    sync
    python3 bench/interleave.py "$RUNS" \
      "$a --no-cache=exec '$BUILD/$a' '$exp' --no-cache $args" \
      "$a cached=exec '$BUILD/$a' '$exp' --cache-dir '$cache' $args" \
      >>"$BENCH_DIR/results-each-$size.tsv"
  done < <(analyzers)
  # the exporters' output is as large as the trace: their speed is its bytes per second
  : >"$BENCH_DIR/output-bytes-$size.tsv"
  for f in export.csv trace.json; do
    printf '%s\t%s\n' "$f" "$(stat -c %s "$out/$f")" >>"$BENCH_DIR/output-bytes-$size.tsv"
  done
  python3 - "$size" "$BENCH_DIR/results-each-$size.tsv" "$BENCH_DIR/output-bytes-$size.tsv" <<'PY'
import sys
size, path, sizes_path = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(path)]
out_bytes = dict(line.split("\t") for line in open(sizes_path).read().splitlines())
outputs = {"rt-export": "export.csv", "rt-trace": "trace.json"}
print(f"\nevery analyzer from its cache against its own first load, {size} lines (alternating, medians)")
print(f"{'command':14} {'first s':>8} {'CPU s':>7} {'MiB':>7} {'cached s':>9} {'CPU s':>7} {'MiB':>7} {'first/cached':>13}")
written = []
for first, cached in zip(rows[0::2], rows[1::2]):
    name = first[0].split()[0]
    fw, fm, fc = map(float, first[1:4])
    cw, cm, cc = map(float, cached[1:4])
    print(f"{name:14} {fw:8.3f} {fc:7.3f} {fm:7.1f} {cw:9.4f} {cc:7.4f} {cm:7.1f} {fw / cw:12.1f}x")
    if name in outputs:
        mb = int(out_bytes[outputs[name]]) / 1e6
        written.append(f"{name:14} {mb:8.1f} MB written: {mb / fw:6.0f} MB/s on a first load, {mb / cw:6.0f} MB/s from the cache")
if written:
    print("\nthe exporters, by their output")
    print("\n".join(written))
PY
}

# past_ram EXP: the 100M-line tree, more than this machine's RAM. Each figure is one pass of the
# whole process, RUNS_100M of them in rotating order (bench/interleave.py), the page cache as
# it comes (the tree does not fit in it): the read floor, the first load with and without its
# cache write, DuckDB's, the cached runs, then one more step appended per run and read.
past_ram () {
  local exp=$1 cache="$BENCH_DIR/cache-100M" out="$BENCH_DIR/plots-100M" pool="$BENCH_DIR/steps-100M"
  local runs=${RUNS_100M:-2} results="$BENCH_DIR/results-100M.tsv" bytes lines
  mkdir -p "$out"
  bytes=$(du -sb "$exp" | cut -f1)
  local -a duck=()
  if command -v node >/dev/null && (cd bench && node -e "require.resolve('@duckdb/node-api')" 2>/dev/null); then
    duck=("DuckDB, 2 threads (node bench/duckdb-quantiles.mjs)=exec node bench/duckdb-quantiles.mjs '$exp' 2")
  else
    echo "bench 100M: DuckDB left out: @duckdb/node-api is not installed (make bench-deps)"
  fi
  rm -rf "$cache"
  "$BUILD/rt-cdf" "$exp" --quiet --cache-dir "$cache" --no-render --out "$out" >/dev/null
  sync
  python3 bench/interleave.py "$runs" \
    "read floor (find | xargs cat)=find '$exp' -name 'worker_*.jsonl' -print0 | xargs -0 cat >/dev/null" \
    "rt-cdf --no-cache=exec '$BUILD/rt-cdf' '$exp' --quiet --no-cache --no-render --out '$out'" \
    "${duck[@]}" \
    "rt-cdf, first run (writes the cache)=rm -rf '$cache-first' && exec '$BUILD/rt-cdf' '$exp' --quiet --cache-dir '$cache-first' --no-render --out '$out'" \
    "rt-cdf from the cache=exec '$BUILD/rt-cdf' '$exp' --quiet --cache-dir '$cache' --no-render --out '$out'" \
    "rt-report from the cache=exec '$BUILD/rt-report' '$exp' --quiet --cache-dir '$cache' --no-render --out '$out/report'" \
    >"$results"
  rm -rf "$cache-first"
  # one more step per run (and one for the run that takes the peak), each a new folder moved in
  # from a pool written beside the tree, the cache brought up to date before each
  rm -rf "$pool"
  "$BUILD/rt-synth" "$pool" --first-step 1001 --steps $((4 * runs + 3)) --workers 16 --requests 240 --seed 43 \
    --faults --quiet --start 2025-07-01T00:00:00
  "$BUILD/rt-cdf" "$exp" --quiet --cache-dir "$cache" --no-render --out "$out" >/dev/null
  python3 bench/interleave.py "$runs" \
    "rt-cdf after one more step was appended=next=\$(ls '$pool' | grep '^step_' | sort -t_ -k2 -n | head -1) && mv '$pool'/\$next '$exp'/ && exec '$BUILD/rt-cdf' '$exp' --quiet --cache-dir '$cache' --no-render --out '$out'" \
    >>"$results"
  # a round of a watch that runs on, a step appended before each (bench/watch-round.py)
  python3 bench/watch-round.py $((2 * runs + 1)) "rt-report --watch, a round after one more step" "$pool" "$exp" -- \
    "$BUILD/rt-report" "$exp" --watch 1 --cache-dir "$cache" --no-render --out "$out/report" >>"$results"
  # the tree as it was: the steps appended go
  for d in "$exp"/step_*; do
    n=${d##*_}
    [ "$n" -gt 1000 ] && rm -rf "$d"
  done
  lines=$(cat "$BENCH_DIR/lines-100M" 2>/dev/null || echo 0)
  python3 - "$bytes" "$lines" "$results" <<'PY'
import sys
nbytes, lines, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(path)]
t = {r[0]: r for r in rows}
floor = float(rows[0][1])
duck = next((float(r[1]) for r in rows if r[0].startswith("DuckDB")), None)
print(f"\npast RAM: {lines / 1e6:.0f}M lines, {nbytes / 1e9:.1f} GB of JSONL (rotating order, medians)")
print(f"{'what':44} {'median s':>9} {'CPU s':>7} {'peak MiB':>9} {'/ floor':>8} {'/ DuckDB':>9} {'B/line':>7}")
for r in rows:
    label, w, m, c = r[0], float(r[1]), float(r[2]), float(r[3])
    vs_duck = f"{w / duck:9.2f}" if duck else f"{'-':>9}"
    per_line = f"{m * 1048576 / lines:7.1f}" if lines else f"{'-':>7}"
    print(f"{label:44} {w:9.3f} {c:7.3f} {m:9.1f} {w / floor:8.2f} {vs_duck} {per_line}")
first = t.get("rt-cdf, first run (writes the cache)")
if first:
    print(f"targets (issue 31): peak RSS at most 256 MiB (first run {float(first[2]):.0f}, --no-cache "
          f"{float(t['rt-cdf --no-cache'][2]):.0f}, cached rt-report {float(t['rt-report from the cache'][2]):.0f}); "
          f"first run at most 1.15x the floor ({float(first[1]) / floor:.2f}x)"
          + (f" and 0.8x DuckDB ({float(first[1]) / duck:.2f}x)" if duck else "")
          + f"; one step appended read in at most 0.5 s ({float(t['rt-cdf after one more step was appended'][1]):.2f} s)"
          + f"; a --watch round after one {float(t['rt-report --watch, a round after one more step'][1]):.2f} s"
          + f" (from the cache alone {float(t['rt-report from the cache'][1]):.2f} s)")
PY
}

for size in $SIZES; do
  case $size in
    1M) args=(--steps 10 --workers 16 --requests 230) ;;
    10M) args=(--steps 100 --workers 16 --requests 230) ;;
    100M) args=(--steps 1000 --workers 16 --requests 240) ;;
    *) echo "bench: unknown size $size (1M, 10M or 100M)" >&2; exit 2 ;;
  esac
  exp="$BENCH_DIR/exp-$size"
  if [ "$size" = 100M ] && [ ! -d "$exp" ]; then
    free_gb=$(( $(df -Pk "$BENCH_DIR" | awk 'NR == 2 { print $4 }') / 1048576 ))
    if [ "$free_gb" -lt 45 ]; then
      echo "bench 100M: skipped: $BENCH_DIR has $free_gb GB free, the tree and its caches need 45 (BENCH_DIR=DIR elsewhere)"
      continue
    fi
  fi
  [ -d "$exp" ] || "$BUILD/rt-synth" "$exp" "${args[@]}" --seed 42 --faults --quiet
  if [ "$size" = 100M ]; then
    [ -s "$BENCH_DIR/lines-100M" ] || find "$exp" -name 'worker_*.jsonl' -print0 | xargs -0 cat | wc -l >"$BENCH_DIR/lines-100M"
    past_ram "$exp"
    continue
  fi
  bytes=$(du -sb "$exp" | cut -f1)
  cache="$BENCH_DIR/cache-$size"
  out="$BENCH_DIR/plots-$size"
  results="$BENCH_DIR/results-$size.tsv"
  cat "$exp"/*/*.jsonl >/dev/null            # warm the page cache
  if [ "${ONLY:-}" = versus ]; then
    versus "$size" "$exp"
    continue
  fi
  if [ "${ONLY:-}" = cached ]; then
    cached_vs_first "$size" "$exp"
    continue
  fi
  if [ "${ONLY:-}" = tail ]; then
    tail_vs_cdf "$size" "$exp"
    continue
  fi
  baseline_runs=$RUNS
  [ "$size" = 10M ] && baseline_runs=$BASELINE_RUNS
  {
    measure "cat > /dev/null" "$RUNS" sh -c "cat '$exp'/*/*.jsonl"
    measure "python baseline (json.loads)" "$baseline_runs" python3 bench/baseline_cdf.py "$exp"
    measure "first load (rt-check --no-cache)" "$RUNS" "$BUILD/rt-check" "$exp" --quiet --no-cache
    measure "first load + cache write (rt-check)" "$RUNS" sh -c "rm -rf '$cache' && exec '$BUILD/rt-check' '$exp' --quiet --cache-dir '$cache'"
    sync   # (the cache just written: see cached_vs_first)
    measure "cached load (rt-check)" "$RUNS" "$BUILD/rt-check" "$exp" --quiet --cache-dir "$cache"
    while IFS=$'\t' read -r a args; do
      # shellcheck disable=SC2086   # (the example's arguments, one word each)
      measure "$a${args:+ $args} (cached)" "$RUNS" "$BUILD/$a" "$exp" $args --quiet --cache-dir "$cache" --no-render --out "$out"
    done < <(analyzers plots)
    # no plots, so not in the loop above; it writes a trace of about a third of the input's size
    measure "rt-trace (cached)" "$RUNS" "$BUILD/rt-trace" "$exp" --quiet --cache-dir "$cache" -o "$out/trace.json"
    # the whole page: every analysis, its plots rendered as SVG and inlined (the page's size below)
    measure "rt-report (cached, SVG rendered)" "$RUNS" "$BUILD/rt-report" "$exp" --quiet --cache-dir "$cache" --out "$out/report"
    echo "rt-report page: $(stat -c %s "$out/report/index.html") bytes" >"$BENCH_DIR/report-page-$size.txt"
    measure "rt-cdf (no cache)" "$RUNS" "$BUILD/rt-cdf" "$exp" --quiet --no-cache --no-render --out "$out"
    measure "make plots (fresh cache and output)" "$RUNS" sh -c \
      "rm -rf '$cache' '$out' && XDG_CACHE_HOME='$BENCH_DIR/xdg-$size' exec make -s -C '$ROOT' plots EXP='$exp' OUT='$out'"
  } >"$results"
  report "$size" "$bytes" "$results"
  cat "$BENCH_DIR/report-page-$size.txt"
  versus "$size" "$exp"
  cached_vs_first "$size" "$exp"
  tail_vs_cdf "$size" "$exp"
done
machine () {
  echo
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
}
if [ -n "${ONLY:-}" ]; then
  machine
  exit 0
fi
# rt-compare of three 10M-line experiments from their caches, when the other two exist
# (rt-synth "$BENCH_DIR/exp-10M-b" --steps 100 --workers 16 --requests 230 --seed 43 --faults, -c seed 44)
if [[ " $SIZES " == *" 10M "* ]] && [ -d "$BENCH_DIR/exp-10M-b" ] && [ -d "$BENCH_DIR/exp-10M-c" ]; then
  exps=("$BENCH_DIR/exp-10M" "$BENCH_DIR/exp-10M-b" "$BENCH_DIR/exp-10M-c")
  cache="$BENCH_DIR/cache-compare"
  "$BUILD/rt-compare" "${exps[@]}" --quiet --cache-dir "$cache" --no-render --out "$BENCH_DIR/compare-plots"
  measure "rt-compare of three 10M experiments (cached)" "$RUNS" "$BUILD/rt-compare" "${exps[@]}" --quiet \
    --cache-dir "$cache" --no-render --out "$BENCH_DIR/compare-plots" >"$BENCH_DIR/results-compare.tsv"
  IFS=$'\t' read -r label w m <"$BENCH_DIR/results-compare.tsv"
  echo; echo "$label: $w s median, peak $m MiB"
fi

# the trainer's console log (rt-train): TRAIN_LOG_MB of it, mostly noise
TRAIN_LOG_MB=${TRAIN_LOG_MB:-1000}
if [ "$TRAIN_LOG_MB" -gt 0 ]; then
  log="$BENCH_DIR/console-$TRAIN_LOG_MB.log"
  [ -f "$log" ] || python3 bench/make_console_log.py "$log" "$TRAIN_LOG_MB"
  cat "$log" >/dev/null
  measure "rt-train on a ${TRAIN_LOG_MB} MB console log" "$RUNS" "$BUILD/rt-train" "$log" --quiet --no-render --out "$BENCH_DIR/train-plots" \
    >"$BENCH_DIR/results-train.tsv"
  python3 - "$(stat -c %s "$log")" "$BENCH_DIR/results-train.tsv" <<'PY'
import sys
nbytes = int(sys.argv[1])
label, w, m = open(sys.argv[2]).read().split("\t")
print(f"\n{label}: {float(w):.3f} s median, {nbytes / 1e6 / float(w):.0f} MB/s, peak {float(m):.1f} MiB")
PY
fi

machine
