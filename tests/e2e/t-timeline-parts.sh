#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-timeline-parts.sh: a Gantt large enough to be made in parts of its workers (on two threads)
# is the Gantt of each worker alone, its lanes moved on; its script's lanes and worker tics are
# those of its rows; an unchanged data file is left as it is, a changed one written whole again.
. "$(dirname "$0")/lib.sh"

# 300 requests with phases: some 17,000 rows by the estimate, two parts
"$BUILD/rt-synth" "$TMP/exp" --steps 1 --workers 4 --requests 75 --seed 7 --quiet || fail "rt-synth"
expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --out "$TMP/all"
whole="$TMP/all/timeline_step_1.tsv"
[ "$(grep -c '^lane' "$whole")" -eq 1 ] && ok || fail "the header line is not there once"
[ "$(wc -l <"$whole")" -gt 5000 ] && ok || fail "the Gantt is too small to be made in parts"

# each worker's rows are its Gantt alone (--worker M), its lanes from its band's on
for w in 0 1 2 3; do
  expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --worker "$w" --out "$TMP/w$w"
  first=$(awk -F'\t' -v w="$w" '$2 == w && $4 == "worker" { print $1; exit }' "$whole")
  awk -F'\t' -v OFS='\t' -v w="$w" -v first="$first" 'NR == 1 || $2 == w { if (NR > 1) $1 -= first; print }' \
    "$whole" >"$TMP/rows$w"
  cmp -s "$TMP/rows$w" "$TMP/w$w/timeline_step_1.tsv" && ok || fail "worker $w's rows are not its Gantt alone"
done

# the lanes run on from worker to worker: a band, its requests, an empty lane
awk -F'\t' 'NR > 1 && $4 == "worker" { if ($1 != (n++ ? last + 2 : 0)) bad = 1 } NR > 1 { last = $1 }
             END { exit bad }' "$whole" && ok || fail "the lanes do not run on from worker to worker"

# the script's lanes and worker tics are those of the rows
last=$(tail -n 1 "$whole" | cut -f1)
grep -q "^set yrange \[$((last + 1)):-1\]" "$TMP/all/timeline_step_1.gp" && ok || fail "yrange is not the rows' lanes"
tics=$(awk -F'\t' '$4 == "worker" { printf "%s'"'"'worker %s'"'"' %s", n++ ? ", " : "", $2, $1 }' "$whole")
grep -qF "set ytics ($tics) scale 0" "$TMP/all/timeline_step_1.gp" && ok || fail "ytics are not the rows' bands: $tics"

# run again: the data file is left as it is; changed near its end: written whole again
cp "$whole" "$TMP/before.tsv"
stamp=$(stat -c '%i %Y.%y' "$whole")
sleep 1.1
expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --out "$TMP/all"
[ "$(stat -c '%i %Y.%y' "$whole")" = "$stamp" ] && ok || fail "an unchanged data file was written again"
size=$(stat -c %s "$whole")
printf 'X' | dd of="$whole" bs=1 seek=$((size - 3)) conv=notrunc status=none
expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --out "$TMP/all"
cmp -s "$whole" "$TMP/before.tsv" && ok || fail "a changed data file was not written again whole"
printf 'extra\n' >>"$whole"
expect_exit 0 "$BUILD/rt-timeline" "$TMP/exp" --no-render --out "$TMP/all"
cmp -s "$whole" "$TMP/before.tsv" && ok || fail "a data file longer than the rows was not written again"

finish
