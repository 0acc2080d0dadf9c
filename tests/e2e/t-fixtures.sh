#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fixtures.sh: the analyzers' --json on the hand-checked fixtures equals the answers worked out
# on paper in fixtures/README.md, kept as fixtures/expected/FIXTURE/ANALYZER[.LABEL].json with
# the command's extra arguments in a .args file and a non-zero exit status in a .exit file beside it.
. "$(dirname "$0")/lib.sh"

for expected in "$SRC"/fixtures/expected/*/*.json; do
  fixture=$(basename "$(dirname "$expected")")
  file=$(basename "$expected" .json)            # e.g. workers.step1, turns, check
  analyzer=${file%%.*}
  args=()
  [ -f "${expected%.json}.args" ] && read -r -a args <"${expected%.json}.args"
  want=0
  [ -f "${expected%.json}.exit" ] && want=$(cat "${expected%.json}.exit")
  expect_answer "$analyzer" "$SRC/fixtures/$fixture" "$want" "$expected" "${args[@]}"
done
finish
