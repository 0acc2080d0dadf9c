#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-step-resolver.sh: rt-workers, rt-requests, rt-timeline and rt-tail resolve --step and --steps
# alike, in one place: the same step, the same exit status, the same message, on every
# combination, on a first load and again from the cache (where the load itself resolves --step
# to take that step's requests alone). On the
# damaged sample (steps 1-4; step 1 has the longest rollout, step 3 the longest of 2-3):
# "slowest" is the slowest of the selected steps; a step the trace lacks selects nothing (exit 1,
# as --steps 100- does); a step the trace has but --steps leaves out contradicts it (exit 2).
. "$(dirname "$0")/lib.sh"

exp="$SAMPLES/exp-v2-damaged"
# ARGS|EXIT|STEP (the step analysed, or - when none)
cases=(
  "--step 2|0|2"
  "--step slowest|0|1"
  "|0|1"
  "--steps 2-3|0|3"
  "--steps 2-3 --step slowest|0|3"
  "--steps 1,3 --step 3|0|3"
  "--steps 1 --step 2|2|-"
  "--step 42|1|-"
  "--steps 100-|1|-"
  "--steps 100- --step 2|1|-"
  "--step x|2|-"
)
for pass in first cached; do
for c in "${cases[@]}"; do
  IFS='|' read -r args want_exit want_step <<<"$c"
  read -r -a words <<<"$args"
  first_err=""
  for cmd in rt-workers rt-requests rt-timeline rt-tail; do
    extra=()
    # rt-workers and rt-tail show one step only with --step
    [[ $cmd = rt-workers || $cmd = rt-tail ]] && [[ " $args " != *" --step "* ]] && extra=(--step slowest)
    cache=(--cache-dir "$TMP/cache-$pass")
    "$BUILD/$cmd" "$exp" "${words[@]}" "${extra[@]}" "${cache[@]}" --json --no-render --out "$TMP/o" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" = "$want_exit" ] && ok || fail "$pass: $cmd $args ${extra[*]}: exit $rc, not $want_exit ($(head -c 200 "$TMP/err"))"
    step=$(python3 -c "import json,sys
try:
    d = json.load(open(sys.argv[1]))
    print(d['steps'][0]['step'] if 'steps' in d and len(d['steps']) == 1 else d.get('step', '-'))
except Exception: print('-')" "$TMP/out")
    [ "$want_step" = - ] && [ "$rc" != 0 ] && step=-
    [ "$step" = "$want_step" ] && ok || fail "$pass: $cmd $args ${extra[*]}: step $step, not $want_step"
    err=$(grep -v ': note: ' "$TMP/err" | sed "s/^$cmd: //" | head -1)
    if [ -z "$first_err" ]; then first_err=$err
    else [ "$err" = "$first_err" ] && ok || fail "$pass: $cmd $args: says '$err' where rt-workers says '$first_err'"; fi
  done
done
  # the cache of this pass stays for the next: "cached" runs every case from it
  [ "$pass" = first ] && cp -r "$TMP/cache-first" "$TMP/cache-cached"
done
finish
