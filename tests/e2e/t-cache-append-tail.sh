#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cache-append-tail.sh: a step appended to an experiment whose cache holds a file with an
# unterminated last line (a worker still writing it). Every command that keeps no rows (rt-cdf,
# rt-overview, rt-workers...) must still bring the cache up to date: that file's rows as of its
# last newline are the old cache's. Before, such a command said "no cache written: the rows of
# ... were not kept", and every later run read the appended step again.
. "$(dirname "$0")/lib.sh"

"$BUILD/rt-synth" "$TMP/gen" --steps 3 --workers 3 --requests 6 --seed 5 --quiet
exp="$TMP/exp"
mkdir -p "$exp"
mv "$TMP/gen/step_1" "$TMP/gen/step_2" "$exp/"
# a worker's last line cut short, as a live logger leaves it
printf '{"event": "turn_end", "timestamp": "2025-06-10T09:00:01' >>"$exp/step_2/worker_0.jsonl"
cache=(--cache-dir "$TMP/c")

for cmd in rt-cdf rt-overview rt-workers; do
  rm -rf "$TMP/c" "$exp/step_3"
  expect_exit 0 "$BUILD/$cmd" "$exp" "${cache[@]}" -q --no-render -o "$TMP/o"
  cp -r "$TMP/gen/step_3" "$exp/"
  expect_exit 0 "$BUILD/$cmd" "$exp" "${cache[@]}" --no-render -o "$TMP/o"
  ! grep -q "no cache written" "$TMP/err" && ok || fail "$cmd after an appended step: $(grep 'no cache' "$TMP/err")"
  expect_exit 0 "$BUILD/rt-check" "$exp" "${cache[@]}"
  expect_grep "^loaded      9 files from the cache, 0 grown since, 0 read" "$TMP/out" "$cmd wrote the whole cache"
  # and the answers from it are those of a fresh read
  expect_exit 0 "$BUILD/$cmd" "$exp" "${cache[@]}" --json --no-render -o "$TMP/o"
  mv "$TMP/out" "$TMP/cached.json"
  expect_exit 0 "$BUILD/$cmd" "$exp" --no-cache --json --no-render -o "$TMP/o"
  cmp -s "$TMP/out" "$TMP/cached.json" && ok || fail "$cmd: the cache's answer is not --no-cache's"
done
finish
