#!/usr/bin/env bash
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
  if [ "$analyzer" = check ]; then
    expect_exit "$want" "$BUILD/rt-check" "$SRC/fixtures/$fixture" --json
  else
    expect_exit "$want" "$BUILD/rt-$analyzer" "$SRC/fixtures/$fixture" "${args[@]}" --json --out "$TMP/o" --no-render
  fi
  cp "$TMP/out" "$TMP/actual.json"
  expect_json "$expected" "$TMP/actual.json" "rt-$analyzer ${args[*]} on fixtures/$fixture"
done
finish
