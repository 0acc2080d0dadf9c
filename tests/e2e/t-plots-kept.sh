#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-plots-kept.sh: `make plots` keeps what a user edited and counts what its run drew. A script
# or the shared style ends with the SHA-256 of what rolltrace wrote: edited, it is kept (said
# once per file), rendered as edited, and rolltrace's own returns once it is removed. The count
# is of this run's plots: not those an earlier run with another STEP left in the folder.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }
"$BUILD/rt-synth" "$TMP/exp" --steps 4 --workers 2 --requests 6 --seed 5 --quiet || fail "rt-synth"
P="$TMP/plots"
plots () { expect_exit 0 make -s -C "$SRC" plots BUILD="$BUILD" EXP="$TMP/exp" OUT="$P" "$@"; }
said_count () { sed -n 's/^plots: .* (\([0-9]*\) png files)$/\1/p' "$TMP/out"; }

# the count is of this run's plots, whatever an earlier run with another step left
plots STEP=2
n2=$(said_count)
ls "$P"/*_step_2*.png >/dev/null 2>&1 && ok || fail "STEP=2 drew no plot of step 2"
plots STEP=3
n3=$(said_count)
all=$(ls "$P"/*.png | wc -l)
ls "$P"/*_step_3*.png >/dev/null 2>&1 && ok || fail "STEP=3 drew no plot of step 3"
written=$(ls "$P"/*.gp | grep -v -c -e '_step_2' -e 'rolltrace-style.gp')
[ "$n3" = "$written" ] && ok || fail "make plots STEP=3 says $n3 png files; it wrote $written scripts"
[ "$all" -gt "$n3" ] && ok || fail "the folder holds $all pictures: no stale one of STEP=2 to leave out"
[ -n "$n2" ] && [ "$n2" = "$n3" ] && ok || fail "STEP=2 counted $n2 plots, STEP=3 $n3: the same plots of another step"

# an edited script and an edited style are kept, said, and drawn as edited
tail -n 1 "$P/cdf.gp" | grep -q '^# rolltrace wrote the lines above, sha256 [0-9a-f]\{64\} ' && ok \
  || fail "cdf.gp does not end with its mark: $(tail -n 1 "$P/cdf.gp")"
sed -i 's/^set title .*/set title "my own title"/' "$P/cdf.gp"
printf 'set border 0\n' >>"$P/rolltrace-style.gp"
cp "$P/cdf.gp" "$TMP/cdf.mine"; cp "$P/rolltrace-style.gp" "$TMP/style.mine"
sleep 1.1
plots STEP=3
cmp -s "$P/cdf.gp" "$TMP/cdf.mine" && ok || fail "make plots overwrote the edited cdf.gp"
cmp -s "$P/rolltrace-style.gp" "$TMP/style.mine" && ok || fail "make plots overwrote the edited rolltrace-style.gp"
expect_grep "make plots: $P/cdf.gp was edited since rolltrace wrote it: kept (remove it to get rolltrace's)" "$TMP/out" "the kept script is named"
expect_grep "make plots: $P/rolltrace-style.gp was edited since rolltrace wrote it: kept" "$TMP/out" "the kept style is named"
[ "$(grep -c 'cdf.gp was edited' "$TMP/out")" -eq 1 ] && ok || fail "the kept cdf.gp is named more than once"
[ "$(said_count)" = "$n3" ] && ok || fail "with edited files the count changed: $(said_count), not $n3"
[ "$P/cdf.png" -nt "$TMP/cdf.mine" ] && ok || fail "the edited cdf.gp was not drawn again"
# an analyzer run on its own says so too, and keeps it
expect_exit 0 "$BUILD/rt-cdf" "$TMP/exp" --out "$P" --no-render
expect_grep "rt-cdf: note: $P/cdf.gp was edited: kept as it is (remove it to get rolltrace's again)" "$TMP/err" "rt-cdf names the kept script"
cmp -s "$P/cdf.gp" "$TMP/cdf.mine" && ok || fail "rt-cdf overwrote the edited cdf.gp"
# removed, rolltrace's own comes back, and is written anew as the data changes
rm "$P/cdf.gp" "$P/rolltrace-style.gp"
plots STEP=3
grep -q 'my own title' "$P/cdf.gp" && fail "cdf.gp came back as edited" || ok
grep -q '^set border 0$' "$P/rolltrace-style.gp" && fail "the style came back as edited" || ok
if grep -q "was edited" "$TMP/out"; then fail "a file rolltrace wrote is said edited: $(cat "$TMP/out")"; else ok; fi
finish
