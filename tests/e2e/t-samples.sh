#!/usr/bin/env bash
# t-samples.sh: every analyzer's --json on the shared samples (an independent generator's
# experiments) matches the expected answers, with the expected exit status.
. "$(dirname "$0")/lib.sh"

samples="$SHARED/samples"
[ -d "$samples/expected" ] || { echo "FAIL: $samples not found (it must sit beside the repository)"; exit 1; }

for expdir in "$samples"/expected/*/; do
  name=$(basename "$expdir")
  exp="$samples/$name"
  codes="$expdir/exit_codes.json"
  step=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['step'])" "$codes")
  top=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['top'])" "$codes")
  for analyzer in check cdf overview workers events turns turn-dist requests; do
    want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$codes" "$analyzer")
    args=()
    case $analyzer in
      workers) args=(--step "$step") ;;
      requests) args=(--step "$step" --top "$top") ;;
    esac
    expect_answer "$analyzer" "$exp" "$want" "$expdir/$analyzer.json" "${args[@]}"
  done
done
finish
