#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-train.sh: rt-train reads a noisy console log as fixtures/README.md works it out, joins the
# lines a copy wrapped, skips plots whose metrics are absent, refuses a log without metric lines;
# rt-overview --train joins it.
. "$(dirname "$0")/lib.sh"

fx="$SRC/fixtures/train"
expect_answer train "$fx/console.log" 0 "$SRC/fixtures/train/console.expected.json"

# every plot of a full log is drawn; a GRPO log without critic or per-token metrics skips some
expect_exit 0 "$BUILD/rt-train" "$fx/console.log" --out "$TMP/full" --metric 'critic/*' --window 2
for name in step_timing_breakdown per_token_timing throughput component_comparison generation_timing \
            metric_critic_score_mean; do
  [ -s "$TMP/full/$name.png" ] && ok || fail "rt-train drew no $name.png"
done
python3 - "$TMP/full/metric_critic_score_mean.tsv" <<'PY' && ok || fail "moving mean over --window 2"
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n")[1:] if l]
# critic/score/mean is 0.5, 0.6, 0.9 (step 2's restart wins): means of the last 2
assert [float(r[2]) for r in rows] == [0.5, 0.55, 0.75], rows
PY
# throughput's two panels each show their own mean: the lower one, timing_s/step's (it showed
# the upper one's, perf/throughput's, before)
python3 - "$TMP/full/throughput.gp" "$TMP/full/throughput.tsv" <<'PY' && ok || fail "throughput's panel means"
import re, sys, statistics
gp = open(sys.argv[1]).read()
upper, lower = gp.split("if (1) {")
rows = [l.split("\t") for l in open(sys.argv[2]).read().split("\n")[1:] if l]
def mean(col):
    return statistics.fmean(float(r[col]) for r in rows if r[col] not in ("", "NaN", "nan"))
def shown(text):
    return float(re.findall(r"'mean ([0-9.e+-]+)'", text)[-1])
assert abs(shown(upper) - mean(1)) <= 5e-4 * abs(mean(1)), (shown(upper), mean(1))
assert abs(shown(lower) - mean(2)) <= 5e-4 * abs(mean(2)), (shown(lower), mean(2))
assert "unset label 1" in lower
PY
expect_exit 0 "$BUILD/rt-train" "$fx/grpo.log" --out "$TMP/grpo"
expect_grep "per_token_timing skipped" "$TMP/err" "a log without per-token timing"
[ ! -e "$TMP/grpo/per_token_timing.png" ] && ok || fail "per_token_timing drawn without data"
[ -s "$TMP/grpo/component_comparison.png" ] && ok || fail "component_comparison not drawn"

# A plot with no point to draw is skipped with a note, not drawn empty or failed (gnuplot fails
# on it), and leaves no file: actor/entropy is nan, inf, -inf in console.log; odd-values.log has
# nan, inf, values past 1e300 (gnuplot takes them as undefined), negative and subnormal ones.
expect_no_files () {   # DIR PATTERN LABEL
  if [ -z "$(find "$1" -name "$2" 2>/dev/null)" ]; then ok; else fail "$3: $(cd "$1" && ls $2 | tr '\n' ' ')"; fi
}
expect_exit 0 "$BUILD/rt-train" "$fx/console.log" --out "$TMP/nan" --metric 'actor/*'
expect_grep "metric_actor_entropy skipped: no finite value of actor/entropy" "$TMP/err" "an all-nan --metric"
[ -s "$TMP/nan/metric_actor_lr.png" ] && ok || fail "metric_actor_lr.png not drawn beside an all-nan metric"
expect_no_files "$TMP/nan" 'metric_actor_entropy.*' "files of a skipped plot"
expect_exit 0 "$BUILD/rt-train" "$fx/odd-values.log" --out "$TMP/odd" --metric '*'
for name in step_timing_breakdown component_comparison throughput metric_actor_tiny metric_timing_s_update_actor; do
  [ -s "$TMP/odd/$name.png" ] && ok || fail "odd-values.log: no $name.png"
done
for name in per_token_timing generation_timing metric_actor_huge metric_timing_s_gen metric_timing_per_token_ms_gen; do
  expect_grep "$name skipped: no finite value" "$TMP/err" "odd-values.log"
  expect_no_files "$TMP/odd" "$name.*" "odd-values.log: files of a skipped plot"
done
expect_no_files "$TMP/odd" '.*' "odd-values.log: a temporary file"
[ -z "$(find "$TMP/odd" -empty)" ] && ok || fail "odd-values.log: an empty file in --out"

# A log copied from a terminal, its step lines wrapped (fixtures/README.md works it out): every
# line that only continues a step line is joined to it, so no timing_s/* is lost, and each
# break inside a name or value is counted and named by its line, in the note and the JSON.
expect_exit 0 "$BUILD/rt-train" "$fx/wrapped.log" --out "$TMP/wrapped" --no-render --metric 'timing_s/*'
expect_grep "7 wrapped lines joined to the step line above, 4 of them across a cut" "$TMP/out" "the summary of joins"
expect_grep "rt-train: note: 7 lines only continued the step line above" "$TMP/err" "the note on joins"
expect_grep "line 7 (step 3) 'timing_s/gen:52.5'; line 9 (step 4) 'timing_s/gen:48.5'; line 10 (step 4)" \
  "$TMP/err" "the note names each cut"
expect_grep "line 16 (step 6) 'timing_s/gen:53.0timing_s/update_actor:35.0', no value" "$TMP/err" \
  "the note names a join that is no value"
"$PYTHON" - "$TMP/wrapped" <<'PY' && ok || fail "wrapped.log: the values of every step"
import sys
def series(name):
    rows = [l.split("\t") for l in open(f"{sys.argv[1]}/metric_{name}.tsv").read().split("\n")[1:] if l]
    return {int(r[0]): float(r[1]) for r in rows}
assert series("timing_s_gen") == {1: 50, 2: 55, 3: 52.5, 4: 48.5, 5: 51, 6: 53}, series("timing_s_gen")
assert series("timing_s_update_actor") == {1: 30, 2: 31, 3: 32, 4: 33, 5: 34}, series("timing_s_update_actor")
assert series("timing_s_step") == {1: 90, 2: 95, 3: 92, 4: 93, 5: 94, 6: 96}, series("timing_s_step")
PY
expect_exit 0 "$BUILD/rt-train" "$fx/wrapped.log" --json --no-render --out "$TMP/wrapped"
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "wrapped.log: --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["steps"] == 6 and d["lines"] == 17 and d["joined_lines"] == 7 and d["cut_lines"] == 4, d
assert d["cuts"] == [
    {"line": 7, "step": 3, "text": "timing_s/gen:52.5", "kept": True},
    {"line": 9, "step": 4, "text": "timing_s/gen:48.5", "kept": True},
    {"line": 10, "step": 4, "text": "timing_s/update_actor:33.0", "kept": True},
    {"line": 16, "step": 6, "text": "timing_s/gen:53.0timing_s/update_actor:35.0", "kept": False}], d["cuts"]
assert {k: v["count"] for k, v in d["metrics"].items()} == {
    "actor/entropy": 6, "critic/score/mean": 6, "perf/throughput": 6, "timing_s/gen": 6, "timing_s/step": 6,
    "timing_s/update_actor": 5}, d["metrics"]
PY
# a log without a wrapped line says nothing of joins
expect_exit 0 "$BUILD/rt-train" "$fx/console.log" --json --no-render --out "$TMP/plain"
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert (d["joined_lines"], d["cut_lines"], d["cuts"]) == (0, 0, []), d' \
  "$TMP/out" && ok || fail "console.log: joins where no line is wrapped"
expect_exit 0 "$BUILD/rt-train" "$fx/console.log" --no-render --out "$TMP/plain"
if grep -q "joined" "$TMP/out" "$TMP/err"; then fail "console.log: a note on joins"; else ok; fi

# no metric line: one clear message naming the expected shape, exit 1
expect_exit 1 "$BUILD/rt-train" "$fx/no-metrics.log" --no-render --out "$TMP/none"
expect_grep "step:12 - timing_s/gen" "$TMP/err" "a log without metric lines"
expect_exit 1 "$BUILD/rt-train" "$TMP/missing.log"
expect_exit 2 "$BUILD/rt-train" "$fx/console.log" --window 0

# A crash can leave gigabytes of NUL bytes without a newline: such a line is skipped unread and
# counted, so memory stays bounded (2 GiB of address space in the plain build; ASan reserves
# terabytes of it, so there the peak RSS is bounded instead). The files are sparse.
expect_exit_in_2gib () {   # CODE CMD...: expect_exit, memory bounded
  if grep -q __asan_init "$BUILD/rt-train"; then
    local want=$1; shift
    expect_exit "$want" /usr/bin/time -f %M -o "$TMP/rss" timeout 60 "$@"
    [ "$(tail -n 1 "$TMP/rss")" -lt 2097152 ] && ok || fail "peak RSS $(tail -n 1 "$TMP/rss") KiB: $*"
  else
    expect_exit "$1" bash -c 'ulimit -v 2097152 && exec timeout 60 "$@"' - "${@:2}"
  fi
}
# (the sanitized build, whose memory bound is its peak RSS, reads 200 MiB: still far past the
# 64 MiB line limit, three times slower a byte, and the plain build proves the bound)
if grep -q __asan_init "$BUILD/rt-train"; then nul=200M; else nul=3G; fi
truncate -s "$nul" "$TMP/nul.log"
expect_exit_in_2gib 1 "$BUILD/rt-train" "$TMP/nul.log" --json --no-render --out "$TMP/nul"
expect_grep "^rt-train: .*no metric line" "$TMP/err" "$nul of NUL bytes"
expect_grep "1 line longer than 64 MiB skipped unread (the first is line 1)" "$TMP/err" "$nul of NUL bytes"
python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["long_lines"] == 1 and d["lines"] == 1 and d["steps"] == 0, d' \
  <"$TMP/out" && ok || fail "rt-train --json on $nul of NUL bytes: $(head -c 200 "$TMP/out")"
rm -f "$TMP/nul.log"
# a 70 MiB line among good ones: the lines after it are still read
truncate -s 70M "$TMP/long.log"
printf '\nstep:1 - a:1\nstep:2 - a:2\n' >>"$TMP/long.log"
expect_exit 0 "$BUILD/rt-train" "$TMP/long.log" --json --no-render --out "$TMP/long"
python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["long_lines"] == 1 and d["lines"] == 3 and d["metrics"]["a"]["count"] == 2, d' \
  <"$TMP/out" && ok || fail "rt-train --json after a 70 MiB line: $(head -c 200 "$TMP/out")"
rm -f "$TMP/long.log"
# 60 MiB of distinct names on one line (2 GiB of memory before the limit; fewer under ASan,
# many times slower): past 65536 names their values are counted, not kept
n=5000000
grep -q __asan_init "$BUILD/rt-train" && n=200000
python3 -c "import sys; sys.stdout.write('step:1' + ''.join(' - m%d:1' % i for i in range($n)) + '\\n')" >"$TMP/many.log"
expect_exit_in_2gib 0 "$BUILD/rt-train" "$TMP/many.log" --json --no-render --out "$TMP/many"
expect_grep "$((n - 65536)) values of metrics past the first 65536 names not kept" "$TMP/err" "$n metric names"
python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["dropped_values"] == int(sys.argv[1]) - 65536 and len(d["metrics"]) == 65536, d["dropped_values"]' \
  "$n" <"$TMP/out" && ok || fail "rt-train --json on $n metric names: $(head -c 200 "$TMP/out")"
rm -f "$TMP/many.log"

# Metric names are whatever the log says: quotes, backslashes, control characters (a console
# line holds no newline, and a carriage return starts a new piece), gnuplot commands, bytes
# that are not UTF-8, names that clean to the same file name, a name too long for a file.
# Nothing runs while the plots render, every metric gets a plot of its own with a safe file
# name, --json stays valid UTF-8 with one key per metric, the text output holds no control
# character.
long=$(printf 'n%.0s' $(seq 300))
for step in 1 2; do
  printf "step:$step - x'\v!touch PWNED:1 - evil'name:2 - q\"b\\\\c\001\007:3 - bad\377\376:4 - bad\376\377:5"
  printf " - a/b:6 - a_b:7 - z'; system('touch PWNED'); '\f:8 - \033]0;title\007:9 - !touch PWNED:10 - $long:11"
  printf "\rstep:$step - \`touch PWNED\`:12 - @PWNED:13\n"
done >"$TMP/names.log"
mkdir -p "$TMP/cwd" && cd "$TMP/cwd"
expect_exit 0 "$BUILD/rt-train" "$TMP/names.log" --metric '*' --out "$TMP/names"
cd - >/dev/null
[ -z "$(find "$TMP" -name PWNED)" ] && ok || fail "a metric name ran a command: $(find "$TMP" -name PWNED)"
drawn=$(find "$TMP/names" -name 'metric_*.png' -size +0 | wc -l)
[ "$drawn" -eq 13 ] && ok || fail "13 metrics, $drawn metric plots drawn: $(ls "$TMP/names" | tr '\n' ' ')"
bad=$(cd "$TMP/names" && ls | LC_ALL=C grep -v -E '^[A-Za-z0-9_-]{1,200}\.[a-z]+$')
[ -z "$bad" ] && ok || fail "unsafe output file names: $bad"
[ -s "$TMP/names/metric_a_b.png" ] && [ -s "$TMP/names/metric_a_b_2.png" ] && ok \
  || fail "a_b and a/b do not have a plot each"
grep -q -a "a/b is drawn as metric_a_b_2" "$TMP/err" && ok || fail "no note that a/b's plot is renamed"
expect_exit 0 "$BUILD/rt-train" "$TMP/names.log"
python3 - "$TMP/out" <<'PY' && ok || fail "rt-train's summary prints control characters or bytes that are not UTF-8"
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8")
assert not any(ord(c) < 32 and c != "\n" or ord(c) == 127 for c in text), repr(text)
assert text.count("\n") == 2 + 13, text
PY
expect_exit 0 "$BUILD/rt-train" "$TMP/names.log" --json --no-render --out "$TMP/names-json"
python3 - "$TMP/out" <<'PY' && ok || fail "rt-train --json with hostile metric names: $(head -c 300 "$TMP/out")"
import json, sys
pairs = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), object_pairs_hook=lambda p: p)
metrics = dict(pairs)["metrics"]
keys = [k for k, _ in metrics]
assert len(keys) == 13 and len(set(keys)) == 13, keys
assert "evil'name" in keys and "q\"b\\c\x01\x07" in keys and "\x1b]0;title\x07" in keys, keys
assert sum(k.startswith("bad\ufffd\ufffd") for k in keys) == 2, keys
PY

# the join: the trainer's step and generation time beside the trace's, step by step
expect_exit 0 "$BUILD/rt-overview" "$SRC/fixtures/hand-v2" --train "$fx/grpo.log" --json --no-render --out "$TMP/o"
python3 - "$TMP/out" <<'PY' && ok || fail "rt-overview --train did not join the trainer's times"
import json, sys
steps = {s["step"]: s for s in json.load(open(sys.argv[1]))["steps"]}
assert steps[1]["train_step_s"] == 16.0 and steps[1]["train_gen_s"] == 10.0, steps[1]
assert steps[2]["train_step_s"] == 19.0 and steps[2]["rollout_s"] == 12.0, steps[2]
PY
expect_exit 0 make -s -C "$SRC" plots BUILD="$BUILD" EXP="$SRC/fixtures/hand-v2" TRAIN="$fx/console.log" OUT="$TMP/plots"
[ -s "$TMP/plots/step_timing_breakdown.png" ] && ok || fail "make plots TRAIN=... drew no trainer plot"
grep -q "trainer: timing_s/step" "$TMP/plots/overview.gp" && ok || fail "make plots TRAIN=... left the trainer out of the overview"

# --train on a command of the trace says too what it joined in a wrapped log, and where a break cut
expect_exit 0 "$BUILD/rt-overview" "$SRC/fixtures/hand-v2" --train "$fx/wrapped.log" --no-render --out "$TMP/o-wrapped"
expect_grep "note: .*wrapped.log: 7 lines only continued the step line above" "$TMP/err" "rt-overview --train on a wrapped log"
expect_grep "4 of the breaks cut" "$TMP/err" "rt-overview --train names the cuts"
expect_exit 0 "$BUILD/rt-overview" "$SRC/fixtures/hand-v2" --train "$fx/wrapped.log" --no-render --quiet --out "$TMP/o-wrapped"
[ ! -s "$TMP/err" ] && ok || fail "rt-overview --quiet --train printed: $(cat "$TMP/err")"
finish
