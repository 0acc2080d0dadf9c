#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-synth-validation.sh: rt-synth --validation writes verl's validation rollouts in both layouts
# (a folder per rollout call, or appended to the step's files by the 2026 logger) and leaves the
# training rollouts as they are without it, line for line; the console logs agree on training.
. "$(dirname "$0")/lib.sh"

synth="$BUILD/rt-synth"
# LAYOUT NAME FIRST STEPS TEST_FREQ BEFORE FAULTS WORKERS REQUESTS VAL_REQUESTS [OPTIONS...]
compare () {
  local layout=$1 name=$2 first=$3 steps=$4 freq=$5 before=$6 faults=$7 workers=$8 requests=$9
  local val_requests=${10}; shift 10
  local common=(--steps "$steps" --workers "$workers" --requests "$requests" --seed 9 --first-step "$first" --quiet)
  [ "$faults" = 1 ] && common+=(--faults)
  [ -d "$TMP/base-$name" ] || expect_exit 0 "$synth" "$TMP/base-$name" "${common[@]}" --console-log "$TMP/base-$name.log"
  expect_exit 0 "$synth" "$TMP/$layout-$name" "${common[@]}" --validation "$layout" "$@" \
    --console-log "$TMP/$layout-$name.log"
  if python3 "$SRC/tests/synth-validation.py" "$layout" "$TMP/base-$name" "$TMP/base-$name.log" \
       "$TMP/$layout-$name" "$TMP/$layout-$name.log" "$first" "$steps" "$freq" "$before" "$faults" \
       "$workers" "$val_requests" >"$TMP/check" 2>&1; then ok
  else fail "--validation $layout $*:"; sed 's/^/    /' "$TMP/check" | head -5 >&2; fi
}

# the defaults: validation before training, test_freq 5, a quarter of the requests
compare folders a 1 12 5 1 0 3 8 2
compare append a 1 12 5 1 0 3 8 2
# damaged, another first step and frequency, no validation before training
compare folders b 4 7 3 1 1 4 10 3 --test-freq 3 --val-requests 3
compare append b 4 7 3 1 1 4 10 3 --test-freq 3 --val-requests 3
compare folders c 1 5 2 0 0 2 6 1 --test-freq 2 --no-val-before-train
compare append c 1 5 2 0 0 2 6 1 --test-freq 2 --no-val-before-train
# test_freq 0: only the validation before training
compare folders d 1 4 0 1 0 2 6 1 --test-freq 0
# the example of docs/input.md: step_1 validation, step_2..step_6 training steps 1-5, step_7 validation
ls -d "$TMP"/folders-a/step_* | sed 's/.*step_//' | sort -n | tr '\n' ' ' >"$TMP/folders"
[ "$(cat "$TMP/folders")" = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 " ] && ok || fail "folders: $(cat "$TMP/folders")"
cmp -s "$TMP/folders-a.log" "$TMP/append-a.log" && ok || fail "the layouts wrote different console logs"

# the options
expect_exit 2 "$synth" "$TMP/e1" --validation sideways
expect_exit 2 "$synth" "$TMP/e2" --test-freq 3
expect_exit 2 "$synth" "$TMP/e3" --validation append --schema v1
expect_exit 2 "$synth" "$TMP/e4" --validation append --first-step 0
expect_exit 2 "$synth" "$TMP/e4" --validation folders --first-step 0
expect_exit 0 "$synth" "$TMP/e5" --validation append --first-step 0 --no-val-before-train --quiet
expect_exit 2 "$synth" "$TMP/e6" --validation folders --val-before-train --no-val-before-train
expect_exit 2 "$synth" "$TMP/e7" --validation folders --val-requests 0
# every analyzer reads both layouts
for layout in folders append; do
  for a in $EXP_ANALYZERS; do
    extra=(--quiet)
    [ "$a" = rt-check ] || extra+=(--out "$TMP/o" --no-render)
    expect_exit 0 "$BUILD/$a" "$TMP/$layout-b" "${extra[@]}"
  done
done
finish
