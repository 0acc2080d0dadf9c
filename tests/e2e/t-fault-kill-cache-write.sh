#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fault-kill-cache-write.sh: kill -9 at any moment of a cache write (no handler runs): the next
# run answers as --no-cache does, and leaves a whole cache, nothing torn beside it. Killed at
# chosen bytes and stages (ROLLTRACE_CACHE_FAULT, cache-write.c), then by a timer.
. "$(dirname "$0")/lib.sh"

# 20 steps: one step appended to 19, or two to 18, are few enough beside them to be written as a
# delta of the old cache (load.c, DELTA_SHARE_MAX)
if is_asan; then size=(--steps 20 --workers 3 --requests 20); else size=(--steps 20 --workers 6 --requests 80); fi
"$BUILD/rt-synth" "$TMP/exp" "${size[@]}" --seed 3 --quiet || fail "rt-synth"
steps=$(ls -d "$TMP/exp"/step_* | sort -t_ -k2 -n)
last=$(tail -n 1 <<<"$steps")
second=$(tail -n 2 <<<"$steps" | head -n 1)

# want EXP: the --no-cache answer of rt-cdf on EXP, in $TMP/want-EXPNAME.json
want () {
  expect_safe 0 "$BUILD/rt-cdf" "$1" --json --no-cache --out "$TMP/o" --no-render
  cp "$TMP/out" "$TMP/want-${1##*/}.json"
}
want "$TMP/exp"

# prepare OLD DIR: DIR, a cache folder, holding what a write of the whole trace replaces: nothing
# (OLD no); a cache of the trace without its last step (yes), which the write keeps as the base
# of a delta; that, and a delta of the step before the last (delta), which the write replaces
cdf_quiet () { "$BUILD/rt-cdf" "$TMP/exp" --cache-dir "$1" --out "$TMP/o" --no-render --quiet >/dev/null 2>&1; }
prepare () {
  rm -rf "$2"
  case $1 in
    yes) mv "$last" "$TMP/last-step"; cdf_quiet "$2"; mv "$TMP/last-step" "$last" ;;
    delta) mv "$last" "$TMP/last-step"; mv "$second" "$TMP/second-step"; cdf_quiet "$2"
           mv "$TMP/second-step" "$second"; cdf_quiet "$2"; mv "$TMP/last-step" "$last" ;;
  esac
}

# the file a write of the whole trace puts down over OLD's folder, and its size
C="$TMP/c"
written () { [ "$1" = no ] && echo "$C"/*.rtc || echo "$C"/*.rtc-delta; }
declare -A whole
for old in no yes delta; do
  prepare "$old" "$C"
  [ "$old" = delta ] && { [ -f "$(written delta)" ] && ok || fail "no delta before the last step: $(ls -A "$C")"; }
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
  expect_same_answer "$TMP/want-exp.json" "$TMP/out" "a whole write over old cache $old"
  whole[$old]=$(stat -c %s "$(written "$old")") || fail "no cache written over old cache $old"
done
[ "${whole[yes]}" -lt "${whole[no]}" ] && [ "${whole[delta]}" -gt "${whole[yes]}" ] && ok \
  || fail "the deltas are not what they hold: ${whole[*]}"

# killed AT OLD: rt-cdf on the trace over OLD's cache folder, killed by SIGKILL at AT
# (ROLLTRACE_CACHE_FAULT=kill@AT): it dies of it, what was there stays as it was; the next run
# answers as --no-cache, and leaves one whole cache
killed () {
  local at=$1 old=$2 label="kill -9 at $1 of a cache write (of ${whole[$2]} bytes), old cache: $2" status
  prepare "$old" "$C"
  [ "$old" = no ] || cp -a "$C" "$TMP/old" || fail "$label: no old cache written"
  # (the shell's own "Killed" line to /dev/null)
  { ROLLTRACE_CACHE_FAULT="kill@$at" timeout -k 5 60 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" \
      --out "$TMP/o" --no-render >"$TMP/out" 2>"$TMP/err"; status=$?; } 2>/dev/null
  [ "$status" = 137 ] && ok || fail "$label: status $status, not killed"
  # the old cache (and delta) stay as they were until the new one, complete, is renamed over it;
  # a delta's write leaves the base alone
  if [ "$old" != no ] && [ "$at" != renamed ]; then
    for f in "$TMP/old"/*; do
      cmp -s "$f" "$C/${f##*/}" && ok || fail "$label: ${f##*/} changed"
    done
  elif [ "$old" != no ]; then
    cmp -s "$TMP/old"/*.rtc "$C"/*.rtc && ok || fail "$label: the base changed under its delta"
  fi
  rm -rf "$TMP/old"
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
  expect_same_answer "$TMP/want-exp.json" "$TMP/out" "$label: the next run"
  # killed once its file was named beside the cache, the write leaves that name (whole)
  expect_whole_cache "$TMP/exp" "$C" "$label: the cache after the next run" "$([ "$at" = linked ] && echo '.rolltrace-??????')"
}
for old in no yes delta; do
  w=${whole[$old]}
  for at in 0 1 200 256 4096 $((w / 7)) $((w / 3)) $((w / 2)) $((w * 5 / 6)) \
            $((w - 300)) $((w - 1)) written linked renamed; do
    killed "$at" "$old"
  done
done

# the same by a timer: a run killed after growing fractions of a whole run's time, each
# checked as above (the deterministic kills above are where the test is exact)
start=$(date +%s.%N)
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$TMP/timed" --out "$TMP/o" --no-render
run_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
for f in 0.05 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.95; do
  rm -rf "$C"
  "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v a="$run_s" -v f="$f" 'BEGIN { printf "%.3f", a * f }')"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  label="kill -9 after ${f} of a run (${run_s} s)"
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
  expect_same_answer "$TMP/want-exp.json" "$TMP/out" "$label: the next run"
  expect_whole_cache "$TMP/exp" "$C" "$label: the cache after the next run"
done
finish
