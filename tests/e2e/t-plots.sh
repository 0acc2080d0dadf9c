#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-plots.sh: `make plots` renders every analyzer's plots, and a second run redraws only what
# changed. Also checks that each analyzer renders on its own when gnuplot is installed.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }
"$BUILD/rt-synth" "$TMP/exp" --steps 5 --workers 3 --requests 10 --seed 5 --faults --quiet || fail "rt-synth"

expect_exit 0 make -s -C "$SRC" plots BUILD="$BUILD" EXP="$TMP/exp" OUT="$TMP/plots"
expect_grep "plots: $TMP/plots" "$TMP/out" "make plots says where the plots are"
for name in cdf overview events_pct events_stacked turn_dist_counts turn_dist_mean turns workers_steps; do
  [ -s "$TMP/plots/$name.png" ] && ok || fail "make plots drew no $name.png"
  data=$(sed -n "s/^data = '\(.*\)'\$/\1/p" "$TMP/plots/$name.gp")
  [ -s "$TMP/plots/$data" ] && ok || fail "make plots wrote no $data for $name"
  head -c 8 "$TMP/plots/$name.png" | od -An -c | grep -q 'P   N   G' && ok || fail "$name.png is not a PNG"
done
# every analyzer that the build lists with plot runs of an experiment wrote its scripts
for a in $(awk -F'\t' '!/^#/ && $2 == "EXP" && $3 != "-" { print $1 }' "$COMMANDS_TSV"); do
  grep -l "written by $a from the template" "$TMP/plots"/*.gp >/dev/null && ok || fail "make plots wrote no script of $a"
done
# the two events plots share one table, written once
[ -s "$TMP/plots/events.tsv" ] && [ ! -e "$TMP/plots/events_pct.tsv" ] && [ ! -e "$TMP/plots/events_stacked.tsv" ] \
  && ok || fail "rt-events should write events.tsv alone"
ls "$TMP/plots"/workers_step_*.png >/dev/null 2>&1 && ok || fail "no workers_step_N.png for the slowest step"
ls "$TMP/plots"/requests_top_step_*.png >/dev/null 2>&1 && ok || fail "no requests_top_step_N.png"

# a second run redraws nothing; a changed data file redraws that plot only
stamp () { stat -c '%n %Y.%y' "$TMP/plots"/*.png | sort; }
stamp >"$TMP/before"
sleep 1.1
expect_exit 0 make -s -C "$SRC" plots BUILD="$BUILD" EXP="$TMP/exp" OUT="$TMP/plots"
stamp >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && ok || fail "an unchanged experiment was redrawn"
sleep 1.1
touch "$TMP/plots/cdf.tsv"
expect_exit 0 make -s -C "$SRC" plots BUILD="$BUILD" EXP="$TMP/exp" OUT="$TMP/plots"
stamp >"$TMP/again"
changed=$(diff "$TMP/after" "$TMP/again" | grep -c '^>')
[ "$changed" -eq 1 ] && ok || fail "touching cdf.tsv redrew $changed plots, expected 1"
sleep 1.1
touch "$TMP/plots/events.tsv"              # a shared table redraws every plot made from it
expect_exit 0 make -s -C "$SRC" plots BUILD="$BUILD" EXP="$TMP/exp" OUT="$TMP/plots"
stamp >"$TMP/shared"
diff "$TMP/again" "$TMP/shared" | grep '^>' | sed 's/^> //; s/ .*//; s|.*/||' | sort | tr '\n' ' ' >"$TMP/redrawn"
[ "$(cat "$TMP/redrawn")" = "events_pct.png events_stacked.png " ] && ok \
  || fail "touching events.tsv redrew: $(cat "$TMP/redrawn")"

# an analyzer on its own renders its plot in the chosen format
expect_exit 0 "$BUILD/rt-overview" "$TMP/exp" --out "$TMP/svg" --format svg --quiet
[ -s "$TMP/svg/overview.svg" ] && ok || fail "rt-overview --format svg drew no overview.svg"
(cd "$TMP/svg" && gnuplot overview.gp) && ok || fail "overview.gp does not run on its own in its folder"
finish
