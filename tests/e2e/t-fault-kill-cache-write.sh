#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fault-kill-cache-write.sh: kill -9 at any moment of a cache write (no handler runs): the next
# run answers as --no-cache does, and leaves a whole cache, nothing torn beside it. Killed at
# chosen bytes and stages (ROLLTRACE_CACHE_FAULT, cache-write.c), then by a timer.
. "$(dirname "$0")/lib.sh"

if is_asan; then size=(--steps 6 --workers 4 --requests 40); else size=(--steps 12 --workers 6 --requests 150); fi
"$BUILD/rt-synth" "$TMP/exp" "${size[@]}" --seed 3 --quiet || fail "rt-synth"
# its last step, moved away and back: a cache without it is the old cache a grown trace replaces
last=$(ls -d "$TMP/exp"/step_* | sort -t_ -k2 -n | tail -n 1)

# want EXP: the --no-cache answer of rt-cdf on EXP, in $TMP/want-EXPNAME.json
want () {
  expect_safe 0 "$BUILD/rt-cdf" "$1" --json --no-cache --out "$TMP/o" --no-render
  cp "$TMP/out" "$TMP/want-${1##*/}.json"
}
want "$TMP/exp"

# a whole cache of the grown trace: how many bytes a write puts down
C="$TMP/c"
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$TMP/whole" --out "$TMP/o" --no-render
whole=$(stat -c %s "$TMP/whole"/*.rtc) || fail "no cache written"

# killed AT OLD: rt-cdf on the trace, its cache folder empty (OLD no) or holding a cache of the
# trace without its last step (OLD yes), killed by SIGKILL at AT (ROLLTRACE_CACHE_FAULT=kill@AT):
# it dies of it; the next run answers as --no-cache, and leaves one whole cache
killed () {
  local at=$1 old=$2 label="kill -9 at $1 of a cache write (of $whole bytes), old cache: $2" status
  rm -rf "$C"
  if [ "$old" = yes ]; then
    mv "$last" "$TMP/last-step"
    "$BUILD/rt-cdf" "$TMP/exp" --cache-dir "$C" --out "$TMP/o" --no-render --quiet >/dev/null 2>&1
    mv "$TMP/last-step" "$last"
    cp "$C"/*.rtc "$TMP/old.rtc" && ok || fail "$label: no old cache written"
  fi
  # (the shell's own "Killed" line to /dev/null)
  { ROLLTRACE_CACHE_FAULT="kill@$at" timeout -k 5 60 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" \
      --out "$TMP/o" --no-render >"$TMP/out" 2>"$TMP/err"; status=$?; } 2>/dev/null
  [ "$status" = 137 ] && ok || fail "$label: status $status, not killed"
  # the old cache stays as it was until the new one, complete, is renamed over it
  if [ "$old" = yes ] && [ "$at" != renamed ]; then
    cmp -s "$C"/*.rtc "$TMP/old.rtc" && ok || fail "$label: the old cache changed"
  fi
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
  expect_same_answer "$TMP/want-exp.json" "$TMP/out" "$label: the next run"
  # killed once its file was named beside the cache, the write leaves that name (whole)
  expect_whole_cache "$TMP/exp" "$C" "$label: the cache after the next run" "$([ "$at" = linked ] && echo '.rolltrace-??????')"
}
for old in no yes; do
  for at in 0 1 200 256 4096 $((whole / 7)) $((whole / 3)) $((whole / 2)) $((whole * 5 / 6)) \
            $((whole - 300)) $((whole - 1)) written linked renamed; do
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
