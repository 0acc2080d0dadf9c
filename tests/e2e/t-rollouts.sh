#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-rollouts.sh: every command knows which rollouts are training and which validation, and how it
# knows: a worker file holds one rollout per total_step_duration line; --train LOG maps the
# rollouts to the trainer's steps (a folder per rollout call, or appended to the step); without a
# log --validation-steps names them and a rule flags likely ones; --rollouts chooses; the trainer's
# worker_-1.jsonl is never a rank. Fixtures: fixtures/rollouts (README.md there).
. "$(dirname "$0")/lib.sh"

R="$SRC/fixtures/rollouts"
O=(--out "$TMP/o" --no-render)

# py EXPR FILE: evaluates EXPR on the JSON document of FILE (as d)
py () { "$PYTHON" -c "import json, sys; d = json.load(open(sys.argv[1])); print($1)" "$2"; }

# ---- a file with several total_step_duration lines holds one rollout per line, in time order;
# lines after the last are a rollout still running (hand-split, worked in the README)
split="$R/hand-split"
for round in first cached; do
  expect_exit 0 "$BUILD/rt-check" "$split" --json
  cp "$TMP/out" "$TMP/check.json"
  expect_eq "$(py "[(r['step'], r['rollout'], r['kind'], r['requests'], r['running']) for r in d['rollouts']['rows']]" "$TMP/check.json")" \
    "[(1, 1, 'training', 2, False), (2, 1, 'training', 2, False), (3, 1, 'training', 2, False), (3, 2, 'validation', 1, False), (3, 3, 'validation', 1, True)]" \
    "hand-split rollouts ($round)"
  expect_eq "$(py "d['rollouts']['layout']" "$TMP/check.json")" "appended" "hand-split layout ($round)"
done
# its training rollouts are what the analyses read by default: step 3 is a training step
expect_exit 0 "$BUILD/rt-cdf" "$split" --json "${O[@]}"
expect_eq "$(py "[s['step'] for s in d['steps']]" "$TMP/out")" "[1, 2, 3]" "hand-split training steps"

# ---- step_N/worker_-1.jsonl is the trainer's: its sections, never a rank
expect_eq "$(py "(d['trainer_files'], d['strays'], d['workers'], [(s['event'], s['count'], s['mean_s']) for s in d['trainer_sections']])" "$TMP/check.json")" \
  "(1, [], 1, [('reward_duration', 2, 1.0)])" "worker_-1 in rt-check"
expect_exit 0 "$BUILD/rt-events" "$split" --json "${O[@]}"
expect_eq "$(py "[(s['event'], s['steps'], s['total_s']) for s in d['trainer_sections']]" "$TMP/out")" \
  "[('reward_duration', 1, 2.0)]" "worker_-1 in rt-events"
expect_exit 0 "$BUILD/rt-workers" "$split" --json "${O[@]}"
expect_eq "$(grep -c -- '-1' "$TMP/out")" "0" "rt-workers shows rank -1"

# ---- a folder per rollout call, with the trainer's log: the training rollouts answer as the
# same run written without validation, step numbers being the trainer's
for a in cdf overview events turns turn-dist workers requests timeline; do
  expect_exit 0 "$BUILD/rt-$a" "$R/base" --train "$R/base.log" --json "${O[@]}"
  cp "$TMP/out" "$TMP/base.json"
  expect_exit 0 "$BUILD/rt-$a" "$R/folders" --train "$R/folders.log" --json "${O[@]}"
  cp "$TMP/out" "$TMP/folders.json"
  if "$PYTHON" - "$TMP/base.json" "$TMP/folders.json" >"$TMP/diff" 2>&1 <<'EOF'
import json, sys
def trainer_steps(x):
    """step becomes the trainer's step, and train_step goes: the base run's numbering"""
    if isinstance(x, dict):
        if "train_step" in x:
            x["step"] = x.pop("train_step")
        return {k: trainer_steps(v) for k, v in x.items()}
    if isinstance(x, list):
        return [trainer_steps(v) for v in x]
    return x
base = trainer_steps(json.load(open(sys.argv[1])))
got = trainer_steps(json.load(open(sys.argv[2])))
if base != got:
    print(json.dumps(base)[:300]); print(json.dumps(got)[:300]); sys.exit(1)
EOF
  then ok; else fail "rt-$a on the training rollouts differs from the run without validation:"; sed 's/^/    /' "$TMP/diff" >&2; fi
done
# rt-check tells each folder's kind and why
expect_exit 0 "$BUILD/rt-check" "$R/folders" --train "$R/folders.log" --json
expect_eq "$(py "[(r['step'], r['kind'], r['train_step']) for r in d['rollouts']['rows']]" "$TMP/out")" \
  "[(1, 'validation', 0), (2, 'training', 1), (3, 'training', 2), (4, 'validation', 2), (5, 'training', 3), (6, 'training', 4), (7, 'validation', 4), (8, 'training', 5), (9, 'validation', 5)]" \
  "folders: kinds from the log"
expect_grep "folders.log: validation after step 2" "$TMP/out" "folders: the evidence"
# --rollouts chooses
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --train "$R/folders.log" --rollouts validation --json "${O[@]}"
expect_eq "$(py "[s['step'] for s in d['steps']]" "$TMP/out")" "[1, 4, 7, 9]" "--rollouts validation"
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --train "$R/folders.log" --rollouts all --json "${O[@]}"
expect_eq "$(py "len(d['steps'])" "$TMP/out")" "9" "--rollouts all"
expect_exit 2 "$BUILD/rt-cdf" "$R/folders" --rollouts sideways "${O[@]}"
expect_grep "not training, validation or all" "$TMP/err" "--rollouts sideways"

# rt-report: no trainer_mismatch with its own log, one with the log of another run
expect_exit 0 "$BUILD/rt-report" "$R/folders" --train "$R/folders.log" --json --out "$TMP/rep"
expect_eq "$(py "'trainer_mismatch' in [f['id'] for f in d['findings']]" "$TMP/out")" "False" "report with its own log"
expect_exit 0 "$BUILD/rt-report" "$R/folders" --train "$R/other-run.log" --json --out "$TMP/rep2"
expect_eq "$(py "'trainer_mismatch' in [f['id'] for f in d['findings']]" "$TMP/out")" "True" "report with another run's log"

# a log whose counts cannot match: said, folder numbers kept, nothing guessed
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --train "$R/base.log" --json "${O[@]}"
expect_grep "cannot be matched one for one" "$TMP/err" "a log of another layout"
expect_eq "$(py "[s['step'] for s in d['steps']]" "$TMP/out")" "[1, 2, 3, 4, 5, 6, 7, 8, 9]" "folder numbers kept"
expect_eq "$(grep -c train_step "$TMP/out")" "0" "no train_step from a log that disagrees"

# ---- without a log: --validation-steps names the folders; the rule flags, never excludes
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --validation-steps 1,4,7,9 --json "${O[@]}"
cp "$TMP/out" "$TMP/named.json"
expect_exit 0 "$BUILD/rt-cdf" "$R/base" --json "${O[@]}"
expect_eq "$(py "d['all']" "$TMP/named.json")" "$(py "d['all']" "$TMP/out")" "--validation-steps"
expect_exit 0 "$BUILD/rt-check" "$R/folders" --json
expect_eq "$(py "(d['rollouts']['likely_validation'], [r['step'] for r in d['rollouts']['rows'] if r['likely_validation']])" "$TMP/out")" \
  "(4, [1, 4, 7, 9])" "the automatic rule"
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --json "${O[@]}"
expect_eq "$(py "len(d['steps'])" "$TMP/out")" "9" "flagged, not excluded"

# ---- appended to the step (the 2026 logger): the second rollout of a step is its validation
expect_exit 0 "$BUILD/rt-check" "$R/append" --train "$R/append.log" --json
expect_eq "$(py "[(r['step'], r['rollout'], r['kind'], r['train_step']) for r in d['rollouts']['rows'] if r['step'] in (0, 2, 3)]" "$TMP/out")" \
  "[(0, 1, 'validation', 0), (2, 1, 'training', 2), (2, 2, 'validation', 2), (3, 1, 'training', 3)]" "append: kinds from the log"
expect_eq "$(py "(d['trainer_files'], d['strays'])" "$TMP/out")" "(5, [])" "append: the trainer's files"

# Each worker file is cut to the rollouts read: the training rollouts answer as the same run
# written without validation (base: rt-synth's training lines are the same), on a fresh parse
# and from the cache, every analysis; the validations as the same run's validations written in
# folders of their own. (The trainer's sections of worker_-1.jsonl are the append run's alone.)
cat >"$TMP/same.py" <<'EOF2'
import json, sys
def trainer_steps(x):
    """step becomes the trainer's step, and train_step goes; the trainer's sections go"""
    if isinstance(x, dict):
        if "train_step" in x:
            x["step"] = x.pop("train_step")
        x.pop("trainer_sections", None)
        return {k: trainer_steps(v) for k, v in x.items()}
    if isinstance(x, list):
        return [trainer_steps(v) for v in x]
    return x
want = trainer_steps(json.load(open(sys.argv[1])))
got = trainer_steps(json.load(open(sys.argv[2])))
if want != got:
    print(json.dumps(want)[:300]); print(json.dumps(got)[:300]); sys.exit(1)
EOF2
# same_answer LABEL WANT.json GOT.json
same_answer () {
  if "$PYTHON" "$TMP/same.py" "$2" "$3" >"$TMP/diff" 2>&1; then ok; else
    fail "$1:"; sed 's/^/    /' "$TMP/diff" >&2; fi
}
# same_file LABEL WANT GOT
same_file () { if cmp -s "$2" "$3"; then ok; else fail "$1: $3 differs from $2"; diff "$2" "$3" | head -6 >&2; fi; }
rm -rf "$XDG_CACHE_HOME"
for round in fresh cached; do
  # (rt-tail and rt-whatif read a whole file's requests from the requests table, and a file cut
  # to its rollouts from its rows: here the two ways meet)
  for a in overview cdf workers requests events turns turn-dist timeline tail \
           "whatif --keep 0.9 --max-turns 2 --timeout 5 --defer 1"; do
    set -- $a
    expect_exit 0 "$BUILD/rt-$1" "$R/base" --train "$R/base.log" "${@:2}" --json "${O[@]}"
    cp "$TMP/out" "$TMP/base.json"
    expect_exit 0 "$BUILD/rt-$1" "$R/append" --train "$R/append.log" "${@:2}" --json "${O[@]}"
    same_answer "append ($round): rt-$a on the training rollouts differs from the run without validation" \
      "$TMP/base.json" "$TMP/out"
    expect_exit 0 "$BUILD/rt-$1" "$R/folders" --train "$R/folders.log" "${@:2}" --rollouts validation --json "${O[@]}"
    cp "$TMP/out" "$TMP/folders.json"
    expect_exit 0 "$BUILD/rt-$1" "$R/append" --train "$R/append.log" "${@:2}" --rollouts validation --json "${O[@]}"
    same_answer "append ($round): rt-$a --rollouts validation differs from the validations in folders" \
      "$TMP/folders.json" "$TMP/out"
  done
  # without a cache, a command that reads no request keeps only their durations (cut with the
  # files to the rollouts read): the same answers
  for a in cdf overview events workers; do
    expect_exit 0 "$BUILD/rt-$a" "$R/base" --train "$R/base.log" --json --no-cache "${O[@]}"
    cp "$TMP/out" "$TMP/base.json"
    expect_exit 0 "$BUILD/rt-$a" "$R/append" --train "$R/append.log" --json --no-cache "${O[@]}"
    same_answer "append ($round), --no-cache: rt-$a on the training rollouts differs from the run without validation" \
      "$TMP/base.json" "$TMP/out"
    expect_exit 0 "$BUILD/rt-$a" "$R/folders" --train "$R/folders.log" --rollouts validation --json --no-cache "${O[@]}"
    cp "$TMP/out" "$TMP/folders.json"
    expect_exit 0 "$BUILD/rt-$a" "$R/append" --train "$R/append.log" --rollouts validation --json --no-cache "${O[@]}"
    same_answer "append ($round), --no-cache: rt-$a --rollouts validation differs from the validations in folders" \
      "$TMP/folders.json" "$TMP/out"
  done
  for table in requests turns events steps workers; do
    expect_exit 0 "$BUILD/rt-export" "$R/base" --train "$R/base.log" --table "$table" -o "$TMP/base.csv"
    expect_exit 0 "$BUILD/rt-export" "$R/append" --train "$R/append.log" --table "$table" -o "$TMP/append.csv"
    same_file "append ($round): rt-export --table $table" "$TMP/base.csv" "$TMP/append.csv"
    # without a log: the folder of the validation before training named, the rest by layout
    expect_exit 0 "$BUILD/rt-export" "$R/base" --table "$table" -o "$TMP/base.csv"
    expect_exit 0 "$BUILD/rt-export" "$R/append" --validation-steps 0 --table "$table" -o "$TMP/append.csv"
    same_file "append ($round), no log: rt-export --table $table" "$TMP/base.csv" "$TMP/append.csv"
  done
  expect_exit 0 "$BUILD/rt-trace" "$R/base" --train "$R/base.log" -o "$TMP/base.trace.json"
  expect_exit 0 "$BUILD/rt-trace" "$R/append" --train "$R/append.log" -o "$TMP/append.trace.json"
  same_file "append ($round): rt-trace" "$TMP/base.trace.json" "$TMP/append.trace.json"
  # step 2's rollout is its training rollout's (33.62 s), not the sum of both total_step_duration lines
  expect_exit 0 "$BUILD/rt-overview" "$R/append" --train "$R/append.log" --steps 2 --json "${O[@]}"
  expect_eq "$(py "[(s['step'], round(s['rollout_s'], 6)) for s in d['steps']]" "$TMP/out")" "[(2, 33.622796)]" \
    "append ($round): step 2's rollout"
  # --rollouts all reads the whole files: every line of every rank
  expect_exit 0 "$BUILD/rt-export" "$R/append" --train "$R/append.log" --rollouts all --table events -o "$TMP/all.csv"
  expect_eq "$(($(wc -l <"$TMP/all.csv") - 1))" "$(cat "$R"/append/step_*/worker_[0-9]*.jsonl | wc -l)" \
    "append ($round): --rollouts all reads every line"
done

# ---- plots name the trainer's steps when --train gives them ----
for c in overview workers events turn-dist cdf; do
  expect_exit 0 "$BUILD/rt-$c" "$R/folders" --train "$R/folders.log" --no-render --out "$TMP/p-train"
  expect_exit 0 "$BUILD/rt-$c" "$R/folders" --no-render --out "$TMP/p-plain"
done
# folders 2, 3, 5, 6, 8 are training steps 1-5 (1, 4 and 7 validation)
for gp in overview workers_steps events_pct events_stacked turn_dist_mean; do
  grep -qF 'set xtics ("1" 2, "2" 3, "3" 5, "4" 6, "5" 8)' "$TMP/p-train/$gp.gp" && ok \
    || fail "$gp.gp with --train: x tics not the trainer's steps: $(grep xtics "$TMP/p-train/$gp.gp")"
  grep -q "trainer's step" "$TMP/p-train/$gp.gp" && ok || fail "$gp.gp with --train: no trainer's step label"
  grep -q "trainer's step" "$TMP/p-plain/$gp.gp" && fail "$gp.gp without a log names trainer's steps" || ok
  grep -q "trainer''s steps 1-5 (step folders: steps 2, 3, 5, 6, 8)" "$TMP/p-train/$gp.gp" && ok \
    || fail "$gp.gp with --train: the title does not name the trainer's steps"
done
grep -q "stringcolumn(8)" "$TMP/p-train/turn_dist_counts.gp" && ok || fail "turn_dist_counts with --train: bars not labelled by train_step"
grep -q "stringcolumn(1)" "$TMP/p-plain/turn_dist_counts.gp" && ok || fail "turn_dist_counts without a log: bars not labelled by step"
grep -q "title 'trainer''s step 3 (step_5)'" "$TMP/p-train/cdf.gp" && ok || fail "cdf with --train: curves not named by the trainer's step"
grep -q "title 'step 5'" "$TMP/p-plain/cdf.gp" && ok || fail "cdf without a log: curves not named by folder"
# without a log, rollouts that look like validation are read as training, and every command says so
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --no-render --out "$TMP/p-plain"
expect_grep "note: step_1, step_4, step_7, step_9 look like validation .* --train LOG or --validation-steps SPEC" "$TMP/err" \
  "rt-cdf without a log: no note on the likely validation folders"
expect_exit 0 "$BUILD/rt-cdf" "$R/folders" --train "$R/folders.log" --no-render --out "$TMP/p-train"
grep -q "look like validation" "$TMP/err" && fail "rt-cdf --train still notes likely validation" || ok
# rt-export --schema --train names the train_step column the export with --train ends in
for tbl in requests steps; do
  expect_exit 0 "$BUILD/rt-export" "$R/folders" --train "$R/folders.log" --table $tbl -o "$TMP/tr-$tbl.csv"
  expect_exit 0 "$BUILD/rt-export" --schema pandas --train "$R/folders.log" --table $tbl
  "$PYTHON" -c 'import json, sys
header = open(sys.argv[1]).readline().rstrip("\r\n").split(",")
assert header == list(json.load(open(sys.argv[2]))), (header, sys.argv[2])' "$TMP/tr-$tbl.csv" "$TMP/out" && ok \
    || fail "rt-export --schema pandas --train --table $tbl: its columns are not the export's"
done
# rt-overview's text names an outlier by the trainer's step too, as its plot does
# (the demo's run: its step_4, training step 3, is an outlier)
"$BUILD/rt-synth" "$TMP/demo" --steps 12 --workers 8 --requests 64 --seed 7 --validation folders --test-freq 5 \
  --console-log "$TMP/demo.log" --quiet
expect_exit 0 "$BUILD/rt-overview" "$TMP/demo" --train "$TMP/demo.log" --no-render --out "$TMP/o"
expect_grep "^  step 4 (trainer's step 3) is an outlier" "$TMP/out" "rt-overview --train: the outlier's trainer's step"
rm -rf "$TMP/demo"
# --train and --validation-steps both say which rollouts are validation: one of them, not both
expect_exit 2 "$BUILD/rt-cdf" "$R/folders" --train "$R/folders.log" --validation-steps 1 --no-render --out "$TMP/o"
expect_grep "give one of them" "$TMP/err" "--train with --validation-steps"
# --step on a validation folder says why it is left out, and what reads it
expect_exit 2 "$BUILD/rt-workers" "$R/folders" --train "$R/folders.log" --step 1 --no-render --out "$TMP/o"
expect_grep "step_1 holds no training rollout .* --rollouts validation or all reads it" "$TMP/err" "--step on a validation folder"
expect_exit 0 "$BUILD/rt-workers" "$R/folders" --train "$R/folders.log" --step 1 --rollouts all --no-render --out "$TMP/o"
# rt-workers' list of steps names the trainer's step beside the folder's
expect_exit 0 "$BUILD/rt-workers" "$R/folders" --train "$R/folders.log" --no-render --out "$TMP/p-train"
expect_grep "^step  train  straggler" "$TMP/out" "rt-workers --train: no train column"
expect_grep "^   5      3  " "$TMP/out" "rt-workers --train: folder 5 is not training step 3"
finish
