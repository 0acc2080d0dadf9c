#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cdf-output-kept.sh: rt-cdf's cdf.tsv, made in two halves on two threads when it is large,
# is the same file whichever way it is written: kept as it is (its inode and time stamp) when
# it already holds those bytes, and written anew when any byte of either half, or its length,
# differs.
. "$(dirname "$0")/lib.sh"

# 11 steps of 2 x 1000 requests: 2000 points a step, more than one thread formats
"$BUILD/rt-synth" "$TMP/exp" --steps 11 --workers 2 --requests 1000 --seed 5 --quiet || fail "rt-synth"
O="$TMP/out"
cdf () { "$BUILD/rt-cdf" "$TMP/exp" --no-cache --no-render --quiet --out "$O" >/dev/null 2>"$TMP/err"; }
identity () { stat -c '%i %.9Y %s' "$O/cdf.tsv"; }

cdf || fail "rt-cdf: $(cat "$TMP/err")"
cp "$O/cdf.tsv" "$TMP/want"
size=$(stat -c %s "$TMP/want")
points=$(grep -c '^[0-9]' "$TMP/want")
[ "$points" -gt 20000 ] && ok || fail "only $points points: one thread writes them all"

first=$(identity)
sleep 0.01
cdf || fail "rt-cdf again"
[ "$(identity)" = "$first" ] && ok || fail "an unchanged cdf.tsv was written again"

# change_at OFFSET LABEL: one byte of the file changed (same size) is put right
change_at () {
  printf 'X' | dd of="$O/cdf.tsv" bs=1 seek="$1" conv=notrunc status=none
  local before; before=$(identity)
  cdf || fail "$2: rt-cdf"
  cmp -s "$O/cdf.tsv" "$TMP/want" && ok || fail "$2: cdf.tsv not written anew"
  [ "$(identity)" != "$before" ] && ok || fail "$2: the damaged file kept"
}
change_at 30 "a byte of the first half"
change_at $((size - 30)) "a byte of the second half"
change_at $((size / 2)) "a byte in the middle"

printf '\n' >>"$O/cdf.tsv"
cdf || fail "longer: rt-cdf"
cmp -s "$O/cdf.tsv" "$TMP/want" && ok || fail "a longer cdf.tsv kept"
truncate -s $((size - 1)) "$O/cdf.tsv"
cdf || fail "shorter: rt-cdf"
cmp -s "$O/cdf.tsv" "$TMP/want" && ok || fail "a shorter cdf.tsv kept"

finish
