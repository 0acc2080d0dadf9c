#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-timeline-data-compared.sh: rt-timeline compares each plot's data with the file already in the
# output folder while it makes it, a part of the Gantt on each thread: a file that is the same is
# left as it is; one changed anywhere (at its start, in each part, across the parts' boundary, its
# lines out of lane order, cut, lengthened, emptied, or not a file) is written whole again, the
# same as in a new folder; also when the Gantt's first part is its header line alone.
. "$(dirname "$0")/lib.sh"

# 300 requests with phases: a Gantt of some 17,000 rows, made in two parts
"$BUILD/rt-synth" "$TMP/exp" --steps 1 --workers 4 --requests 75 --seed 7 --quiet || fail "rt-synth"
expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --out "$TMP/fresh"
run () { expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --out "$TMP/plots"; }
run
same_as_fresh () {
  local f
  for f in "$TMP/fresh"/*; do
    cmp -s "$f" "$TMP/plots/$(basename "$f")" || { fail "$1: $(basename "$f") is not the fresh folder's"; return; }
  done
  ok
}
same_as_fresh "a second folder"

gantt="$TMP/plots/timeline_step_1.tsv"
[ "$(wc -l <"$gantt")" -gt 5000 ] && ok || fail "the Gantt is too small to be made in parts"
# where the second part begins: the band of worker 2 (the parts split the rows about evenly)
boundary=$(awk -F'\t' '$2 == 2 && $4 == "worker" { print NR; exit }' "$gantt")
[ -n "$boundary" ] && ok || fail "no band of worker 2"

# unchanged: every data file keeps its inode and time stamp
stamps () { stat -c '%n %i %Y.%y' "$TMP/plots"/*.tsv; }
before=$(stamps)
sleep 1.1
run
[ "$(stamps)" = "$before" ] && ok || fail "an unchanged data file was written again"

# changed: one byte at the start, in the first part, just before and after the boundary, near
# the end; of the in-flight data too
change_byte () {   # FILE OFFSET
  printf 'X' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
size=$(stat -c %s "$gantt")
at_boundary=$(head -n $((boundary - 1)) "$gantt" | wc -c)
for offset in 0 1000 $((at_boundary - 2)) "$at_boundary" $((at_boundary + 3)) $((size - 3)); do
  change_byte "$gantt" "$offset"
  run
  same_as_fresh "a Gantt changed at byte $offset"
done
inflight="$TMP/plots/inflight_step_1.tsv"
change_byte "$inflight" $(($(stat -c %s "$inflight") / 2))
run
same_as_fresh "the in-flight data changed in its middle"

# the same lines in another order: the parts cannot find their place by lane
{ head -n 1 "$gantt"; tail -n +2 "$gantt" | sort -t$'\t' -k1,1nr -s; } >"$TMP/reversed"
cp "$TMP/reversed" "$gantt"
run
same_as_fresh "the Gantt's lines by descending lane"
# a row of the first part moved into the second: the same length, each part's lines shifted
{ head -n 1 "$gantt"; sed -n "3,$((boundary))p" "$gantt"; sed -n 2p "$gantt"; tail -n +$((boundary + 1)) "$gantt"; } \
  >"$TMP/moved"
cp "$TMP/moved" "$gantt"
run
same_as_fresh "a row moved across the parts' boundary"

# cut (at the boundary, and in its middle), lengthened, emptied, a folder in its place
head -c "$at_boundary" "$TMP/fresh/timeline_step_1.tsv" >"$gantt"
run
same_as_fresh "a Gantt cut at the parts' boundary"
head -c $((size / 3)) "$TMP/fresh/timeline_step_1.tsv" >"$gantt"
run
same_as_fresh "a Gantt cut in its first part"
printf 'extra\n' >>"$gantt"
run
printf '0\t0\tNaN\tworker\t0\t1\n' >>"$gantt"
run
same_as_fresh "a Gantt with a line more"
: >"$gantt"
: >"$inflight"
run
same_as_fresh "empty data files"
rm -f "$gantt"
mkdir "$gantt"
expect_exit 1 "$BUILD/rt-timeline" "$TMP/exp" --no-render --quiet --out "$TMP/plots"
rmdir "$gantt"
run
same_as_fresh "a data file that was a folder"

# --worker 1 of two workers: the Gantt's first part (worker 0) holds its header line alone, and
# the second part, from lane 0, begins after it
"$BUILD/rt-synth" "$TMP/two" --steps 1 --workers 2 --requests 200 --seed 7 --quiet || fail "rt-synth"
expect_exit 0 "$BUILD/rt-timeline" "$TMP/two" --no-render --worker 1 --out "$TMP/one"
one="$TMP/one/timeline_step_1.tsv"
[ "$(head -n 2 "$one" | tail -n 1 | cut -f1,2)" = "$(printf '0\t1')" ] && ok || fail "worker 1's Gantt does not begin on lane 0"
before=$(stat -c '%i %Y.%y' "$one")
sleep 1.1
expect_exit 0 "$BUILD/rt-timeline" "$TMP/two" --no-render --worker 1 --out "$TMP/one"
[ "$(stat -c '%i %Y.%y' "$one")" = "$before" ] && ok || fail "an unchanged Gantt of a later worker alone was written again"

finish
