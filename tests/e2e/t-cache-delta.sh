#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cache-delta.sh: steps appended to a cached experiment (a running job's) are written to a delta
# beside its cache, which stays as it was. Every command answers as --no-cache does: the run that
# writes the delta, and the one after it, which reads nothing; the delta is written again for the
# next step (its last worker still writing an unterminated line).
. "$(dirname "$0")/lib.sh"

export SOURCE_DATE_EPOCH=0   # rt-report's page says when it was written
"$BUILD/rt-synth" "$TMP/exp" --steps 20 --workers 3 --requests 12 --seed 9 --quiet || fail "rt-synth"
mv "$TMP/exp/step_19" "$TMP/exp/step_20" "$TMP/"
C="$TMP/c"
expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --cache-dir "$C"
base=$(ls "$C"/*.rtc)
cp "$base" "$TMP/base.rtc"

commands=(
  "rt-cdf" "rt-cdf --fit --event tool_execution" "rt-cdf --steps 18-" "rt-overview" "rt-workers"
  "rt-workers --step slowest" "rt-requests --step slowest" "rt-requests --step 19" "rt-turns"
  "rt-turn-dist" "rt-events" "rt-timeline --step 19" "rt-tail" "rt-whatif --keep 0.9"
  "rt-export --table requests" "rt-export --table turns" "rt-export --table events --steps 19-"
  "rt-trace --steps 18-" "rt-report"
)
# each command over a copy of the cache folder as it is: the answer of the run that brings the
# cache up to date, and of the one after it, are --no-cache's
answers_right () {
  local label=$1 cmd
  for cmd in "${commands[@]}"; do
    rm -rf "$TMP/c2" && cp -a "$C" "$TMP/c2"
    # shellcheck disable=SC2086
    expect_safe 0 "$BUILD/"$cmd "$TMP/exp" --json --no-cache --no-render --out "$TMP/o"
    mv "$TMP/out" "$TMP/want.json"
    for run in writes reads; do
      # shellcheck disable=SC2086
      expect_safe 0 "$BUILD/"$cmd "$TMP/exp" --json --cache-dir "$TMP/c2" --no-render --out "$TMP/o"
      expect_same_answer "$TMP/want.json" "$TMP/out" "$label: $cmd, the run that $run the cache"
    done
    cmp -s "$TMP/c2/${base##*/}" "$TMP/base.rtc" && ok || fail "$label: $cmd changed the cache under its delta"
  done
}

# one step: a delta of its files
mv "$TMP/step_19" "$TMP/exp/"
answers_right "one step appended"
expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --cache-dir "$C" --json
[ -f "$base-delta" ] && cmp -s "$base" "$TMP/base.rtc" && ok || fail "no delta, or the cache changed: $(ls -l "$C")"
expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --cache-dir "$C"
expect_grep "^loaded  *57 files from the cache, 0 grown since, 0 read" "$TMP/out" "the delta's files are the cache's"
delta1=$(stat -c %s "$base-delta")

# another, its last worker still writing a line: a new delta of both steps
mv "$TMP/step_20" "$TMP/exp/"
printf '{"event": "turn_end", "timestamp": "2025-06-10T09:00:01' >>"$TMP/exp/step_20/worker_2.jsonl"
answers_right "two steps appended, one still written"
expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --cache-dir "$C"
[ "$(stat -c %s "$base-delta")" -gt "$delta1" ] && cmp -s "$base" "$TMP/base.rtc" && ok \
  || fail "the delta does not hold both steps, or the cache changed: $(ls -l "$C")"
expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --cache-dir "$C"
expect_grep "^loaded  *60 files from the cache, 0 grown since, 0 read" "$TMP/out" "both steps' files are the cache's"
expect_whole_cache "$TMP/exp" "$C" "the cache and its delta"
finish
