#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-output.sh: hostile input, class 11 (a, b) of issue 10: no half-written output. A plot
# with nothing to draw is skipped; a failed write leaves every file whole or absent. ((c): t-hostile-signals.sh)
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }

# --- (a) a metric that is NaN (or infinite) at every step --------------------------------------
for step in 1 2 3 4; do
  printf 'step:%d - timing_s/gen:%d - timing_s/step:%d - critic/nan_all:nan - critic/inf_all:%sinf - critic/ok:0.%d\n' \
    "$step" $((40 + step)) $((90 + step)) "$([ $((step % 2)) = 0 ] && echo -)" "$step"
done >"$TMP/nan.log"
expect_safe 0 "$BUILD/rt-train" "$TMP/nan.log" --metric 'critic/*' --out "$TMP/o-nan"
grep -a 'skipped' "$TMP/err" | grep -q -a 'critic.nan_all' && ok \
  || fail "rt-train does not say that the plot of critic/nan_all is skipped: $(head -c 300 "$TMP/err")"
grep -a 'skipped' "$TMP/err" | grep -q -a 'critic.inf_all' && ok \
  || fail "rt-train does not say that the plot of critic/inf_all is skipped: $(head -c 300 "$TMP/err")"
empty=$(find "$TMP/o-nan" -name 'metric_*.png' -size 0 | tr '\n' ' ')
[ -z "$empty" ] && ok || fail "rt-train left empty plots: $empty"
[ -s "$TMP/o-nan/metric_critic_ok.png" ] && ok || fail "rt-train drew no metric_critic_ok.png beside the skipped ones"
expect_no_temps "$TMP/o-nan" "rt-train with metrics that are NaN at every step"

# --- (b) writing fails: a file-size limit of 8 KiB ---------------------------------------------
"$BUILD/rt-synth" "$TMP/exp" --steps 3 --workers 4 --requests 20 --seed 2 --quiet || fail "rt-synth"
state=$(tree_state "$TMP/exp")
limited () { expect_safe "$1" bash -c 'trap "" XFSZ; ulimit -f 8 && exec "$@"' bash "${@:2}"; }
# each case: an earlier complete run into O, then the same command on other steps under the
# limit into O with a fresh cache folder; NEW is what that command writes when nothing fails
for q in "rt-cdf" "rt-requests --step 2 --top 3" "rt-events" "rt-turn-dist"; do
  cmd=${q%% *}; read -r -a extra <<<"${q#"$cmd"}"
  o="$TMP/o-${cmd}" c="$TMP/c-${cmd}"
  expect_safe 0 "$BUILD/$cmd" "$TMP/exp" "${extra[@]}" --out "$o" --no-cache --quiet
  cp -a "$o" "$o.old"
  expect_safe 0 "$BUILD/$cmd" "$TMP/exp" "${extra[@]}" --steps 2-3 --out "$o.new" --no-cache --quiet
  limited 1 "$BUILD/$cmd" "$TMP/exp" "${extra[@]}" --steps 2-3 --out "$o" --cache-dir "$c"
  expect_whole "$o" "$o.old" "$o.new" "$q --out under a file-size limit"
  expect_no_temps "$c" "$q: the cache folder under a file-size limit"
  expect_only_rtc "$c" "$q: the cache folder under a file-size limit"
  # into a folder of its own, without an earlier run
  limited 1 "$BUILD/$cmd" "$TMP/exp" "${extra[@]}" --steps 2-3 --out "$o.fresh" --cache-dir "$c"
  expect_whole "$o.fresh" "$TMP/none" "$o.new" "$q --out (a new folder) under a file-size limit"
done
expect_safe 0 "$BUILD/rt-train" "$SRC/fixtures/train/console.log" --out "$TMP/o-train" --quiet
cp -a "$TMP/o-train" "$TMP/o-train.old"
expect_safe 0 "$BUILD/rt-train" "$SRC/fixtures/train/console.log" --window 2 --out "$TMP/o-train.new" --quiet
limited 1 "$BUILD/rt-train" "$SRC/fixtures/train/console.log" --window 2 --out "$TMP/o-train"
expect_whole "$TMP/o-train" "$TMP/o-train.old" "$TMP/o-train.new" "rt-train --out under a file-size limit"
# a command with no output but its cache: the cache write fails, nothing is left of it
limited "0 1" "$BUILD/rt-check" "$TMP/exp" --cache-dir "$TMP/c-check"
expect_no_temps "$TMP/c-check" "rt-check: the cache folder under a file-size limit"
expect_only_rtc "$TMP/c-check" "rt-check: the cache folder under a file-size limit"
# whatever was left in the cache folders still gives the answers of a fresh load
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --no-cache --out "$TMP/o-json" --no-render
cp "$TMP/out" "$TMP/want.json"
for c in "$TMP"/c-*; do
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$c" --out "$TMP/o-json" --no-render
  expect_same_answer "$TMP/want.json" "$TMP/out" "rt-cdf from the cache left in ${c##*/} by a failed write"
done
expect_tree_unchanged <(echo "$state") "$TMP/exp" "the experiment after failed writes"

finish
