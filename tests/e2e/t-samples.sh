#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-samples.sh: every analyzer's --json on the samples of fixtures/samples (an independent generator's
# experiments) matches the expected answers, with the expected exit status. Every analyzer of
# experiments the build lists must have its expected answer there.
. "$(dirname "$0")/lib.sh"

samples="$SAMPLES"
[ -d "$samples/expected" ] || { echo "FAIL: $samples not found "; exit 1; }

NEWER_THAN_SAMPLES="rt-timeline rt-tail rt-whatif rt-export rt-trace rt-report"
for expdir in "$samples"/expected/*/; do
  name=$(basename "$expdir")
  exp="$samples/$name"
  codes="$expdir/exit_codes.json"
  step=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['step'])" "$codes")
  top=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['top'])" "$codes")
  for cmd in $EXP_ANALYZERS; do
    analyzer=${cmd#rt-}
    # the samples' answers were written before these analyzers existed (and are not ours to
    # extend): t-golden and the hand-worked fixtures check them instead
    case " $NEWER_THAN_SAMPLES " in *" $cmd "*) continue ;; esac
    want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ''))" "$codes" "$analyzer")
    if [ ! -f "$expdir/$analyzer.json" ] || [ -z "$want" ]; then
      fail "the build lists $cmd, but $expdir has no $analyzer.json or no exit status for it"
      continue
    fi
    args=()
    case $analyzer in
      workers) args=(--step "$step") ;;
      requests) args=(--step "$step" --top "$top") ;;
    esac
    expect_answer "$analyzer" "$exp" "$want" "$expdir/$analyzer.json" "${args[@]}"
  done
  # and no expected answer is left unchecked
  for answer in "$expdir"/*.json; do
    name=$(basename "$answer" .json)
    [ "$name" = exit_codes ] && continue
    case " $EXP_ANALYZERS " in *" rt-$name "*) ok ;; *) fail "$answer: the build lists no rt-$name" ;; esac
  done
done
finish
