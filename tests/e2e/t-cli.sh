#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cli.sh: the command-line contract every executable shares: --help, --version, usage errors
# exit 2, a bad experiment folder exits 1 with one clear message, nothing is written into EXP.
. "$(dirname "$0")/lib.sh"

ALL=$EXP_ANALYZERS                   # the analyzers of experiments, as the build lists them
fx="$SRC/fixtures/hand-v2"

for cmd in $ALL_ANALYZERS rt-synth; do
  expect_exit 0 "$BUILD/$cmd" --help
  expect_grep "Usage:" "$TMP/out" "$cmd --help"
done
# the build's own tools only show their use: no file named --help, no list printed for it
for tool in rt-gen-pow5 rt-event-names; do
  (cd "$TMP" && "$BUILD/$tool" --help >"$TMP/out" 2>"$TMP/err"); rc=$?
  [ $rc = 0 ] && ok || fail "$tool --help exited $rc"
  expect_grep "^usage: $tool" "$TMP/out" "$tool --help"
  [ ! -e "$TMP/--help" ] && ok || fail "$tool --help wrote a file named --help"
  (cd "$TMP" && "$BUILD/$tool" --no-such-option >/dev/null 2>"$TMP/err"); rc=$?
  [ $rc = 2 ] && ok || fail "$tool --no-such-option exited $rc, not 2"
  [ ! -e "$TMP/--no-such-option" ] && ok || fail "$tool wrote a file named --no-such-option"
done
"$BUILD/rt-event-names" >"$TMP/names"
expect_grep "^turn_engine_call$" "$TMP/names" "rt-event-names still lists the names"

for cmd in $ALL; do
  expect_exit 0 "$BUILD/$cmd" --version
  expect_grep "rolltrace" "$TMP/out" "$cmd --version"
  expect_exit 2 "$BUILD/$cmd"                                  # no EXP
  expect_grep "Try '$cmd --help'" "$TMP/err" "$cmd without EXP"
  expect_exit 2 "$BUILD/$cmd" "$fx" --no-such-option
  expect_exit 2 "$BUILD/$cmd" "$fx" --steps 5-3
  expect_grep "steps" "$TMP/err" "$cmd --steps 5-3"
  expect_exit 1 "$BUILD/$cmd" "$fx" --steps 7-9              # no such step: said, not ignored
  expect_grep "selects none of the steps .* (1 to 2)" "$TMP/err" "$cmd --steps 7-9"
  expect_exit 1 "$BUILD/$cmd" "$TMP/does-not-exist"
  expect_grep "does-not-exist" "$TMP/err" "$cmd on a missing folder"
  expect_exit 1 "$BUILD/$cmd" "$fx/step_1/worker_0.jsonl"
  expect_grep "not a folder" "$TMP/err" "$cmd on a file"
  mkdir -p "$TMP/empty"
  expect_exit 1 "$BUILD/$cmd" "$TMP/empty"
  expect_grep "no step_N folders" "$TMP/err" "$cmd on an empty folder"
  [ "$(wc -l < "$TMP/err")" -eq 1 ] && ok || fail "$cmd on an empty folder: more than one line of error"
done

# a step folder given for its experiment, and a folder of experiments: the error says what to give
mkdir -p "$TMP/runs/a/step_1" "$TMP/runs/b/step_3" "$TMP/runs/notes"
for cmd in $ALL; do
  expect_exit 1 "$BUILD/$cmd" "$fx/step_1"
  expect_grep "it is a step folder itself: give its experiment, $fx\$" "$TMP/err" "$cmd on a step folder"
  expect_exit 1 "$BUILD/$cmd" "$TMP/runs"
  expect_grep "it holds experiments, give one of them: $TMP/runs/a, $TMP/runs/b\$" "$TMP/err" "$cmd on a folder of experiments"
  [ "$(wc -l < "$TMP/err")" -eq 1 ] && ok || fail "$cmd on a folder of experiments: more than one line of error"
done

# a mistyped option or event name gets the closest one offered
expect_exit 2 "$BUILD/rt-cdf" "$fx" --step 1
expect_grep "Unknown option --step (this command reads every selected step: --steps N for step N alone)" "$TMP/err" "rt-cdf --step"
expect_exit 2 "$BUILD/rt-cdf" "$fx" --evnet turn_end
expect_grep "Unknown option --evnet (did you mean --event?)" "$TMP/err" "rt-cdf --evnet"
expect_exit 2 "$BUILD/rt-cdf" "$fx" --zzzzzz
expect_grep "Unknown option --zzzzzz$" "$TMP/err" "rt-cdf --zzzzzz offers nothing"
expect_exit 1 "$BUILD/rt-cdf" "$fx" --event turn_engine_cal --out "$TMP/o" --no-render
expect_grep "the trace has no event named turn_engine_cal (the closest: turn_engine_call, " "$TMP/err" "rt-cdf --event misspelt"

# the note on bad lines counts the selected steps' only, as rt-check with the same --steps does
dmg="$SAMPLES/exp-v2-damaged"
for spec in 1 3 2-3 1,4; do
  expect_exit 0 "$BUILD/rt-cdf" "$dmg" --steps "$spec" --out "$TMP/o" --no-render
  said=$(sed -n 's/.*note: \([0-9]*\) bad lines\{0,1\} skipped.*/\1/p' "$TMP/err")
  want=$("$BUILD/rt-check" "$dmg" --steps "$spec" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['bad_lines'])")
  [ "$said" = "$want" ] && ok || fail "rt-cdf --steps $spec notes '$said' bad lines, rt-check --steps $spec finds $want"
  expect_grep "(rt-check $dmg --steps $spec lists them)" "$TMP/err" "rt-cdf --steps $spec names rt-check's --steps"
done

# --json prints exactly one JSON document; --quiet prints nothing on stdout
for cmd in $ALL; do
  if [ "$cmd" = rt-check ]; then expect_exit 0 "$BUILD/$cmd" "$fx" --json
  else expect_exit 0 "$BUILD/$cmd" "$fx" --json --out "$TMP/o" --no-render; fi
  python3 -c "import json,sys; json.loads(sys.stdin.read())" <"$TMP/out" && ok || fail "$cmd --json is not one document"
done
expect_exit 0 "$BUILD/rt-cdf" "$fx" --quiet --out "$TMP/o" --no-render
[ ! -s "$TMP/out" ] && ok || fail "rt-cdf --quiet printed on stdout"

# analyzer-specific usage errors
# a step the trace lacks selects nothing: exit 1, as --steps 100- (t-step-resolver checks all)
expect_exit 1 "$BUILD/rt-workers" "$fx" --step 99
expect_grep "no step_99" "$TMP/err" "rt-workers --step 99"
expect_exit 2 "$BUILD/rt-requests" "$fx" --step 1 --top many
expect_exit 2 "$BUILD/rt-cdf" "$fx" --format gif
# --help says how the tables it lists are written: rt-export's as CSV, never as TSV
"$BUILD/rt-export" --help >"$TMP/help" 2>&1
expect_grep "^Tables (written as NAME.csv" "$TMP/help" "rt-export --help"
grep -q "NAME.tsv" "$TMP/help" && fail "rt-export --help says its tables are TSV files" || ok
# --worker LIST is read as --steps is, its errors name --worker, and nothing is printed before them
for cmd in rt-timeline rt-trace; do
  expect_exit 2 "$BUILD/$cmd" "$fx" --worker x --out "$TMP/w.json" --no-render
  expect_grep "^$cmd: --worker: cannot read 'x'" "$TMP/err" "$cmd --worker x"
  [ ! -s "$TMP/out" ] && ok || fail "$cmd --worker x printed a summary before its usage error"
done
expect_exit 2 "$BUILD/rt-timeline" "$fx" --worker 99 --out "$TMP/w" --no-render
expect_grep "no such worker file" "$TMP/err" "rt-timeline --worker 99"
[ ! -s "$TMP/out" ] && ok || fail "rt-timeline --worker 99 printed a summary before its usage error"
expect_exit 1 "$BUILD/rt-cdf" "$fx" --event never_logged --out "$TMP/o" --no-render
expect_grep "never_logged" "$TMP/err" "rt-cdf --event never_logged"

# nothing is ever written into the experiment, not even when --out points there
cp -r "$fx" "$TMP/exp"
before=$(cd "$TMP/exp" && find . -exec stat -c '%n %s %Y' {} + | sort | md5sum)
for cmd in $ALL; do
  (cd "$TMP/exp" && "$BUILD/$cmd" . --quiet --out "$TMP/o2" --no-render 2>/dev/null >/dev/null; true)
done
expect_exit 2 "$BUILD/rt-cdf" "$TMP/exp" --out "$TMP/exp/plots"
expect_grep "inside the experiment" "$TMP/err" "--out inside EXP"
after=$(cd "$TMP/exp" && find . -exec stat -c '%n %s %Y' {} + | sort | md5sum)
[ "$before" = "$after" ] && ok || fail "something was written into the experiment folder"

finish
