#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-multi.sh: a command of several experiments (EXP...) gets each loaded (through the cache),
# labelled by its folder (equal names: exp, exp#2, exp#3), with --steps applied to each, and
# every error names the experiment it is about. rt-test-multi (built for the tests) lists them.
. "$(dirname "$0")/lib.sh"

M="$BUILD/tests/rt-test-multi"
synth () { "$BUILD/rt-synth" "$@" --workers 2 --requests 3 --quiet || fail "rt-synth $*"; }
mkdir -p "$TMP/a" "$TMP/b" "$TMP/c"
synth "$TMP/a/exp" --steps 3 --seed 1                  # steps 1-3, 2 workers
synth "$TMP/b/exp" --steps 5 --seed 2                  # steps 3-5, once its first two are gone
rm -rf "$TMP/b/exp/step_1" "$TMP/b/exp/step_2"
synth "$TMP/c/exp" --steps 2 --seed 3                  # steps 1-2
synth "$TMP/other" --steps 4 --seed 4                  # steps 1-4

# line LABEL: the line rt-test-multi printed for the experiment LABEL, without its label
line () { awk -F'\t' -v l="$1" '$1 == l { sub(/^[^\t]*\t/, ""); print }' "$TMP/out"; }
# expect_line LABEL WANT WHAT
expect_line () {
  local got; got=$(line "$1")
  [ "$got" = "$2" ] && ok || fail "$3: for $1 got '$got', expected '$2'"
}
# figures EXP: "files N<TAB>requests N" of EXP as rt-check counts them on its own
figures () {
  "$BUILD/rt-check" "$1" --json --no-cache | python3 -c \
    "import json,sys; d=json.load(sys.stdin); print(f\"files {d['files']}\trequests {d['requests']}\")"
}

# --- labels from the folders' names; each experiment loaded on its own --------------------------
expect_exit 0 "$M" "$TMP/a/exp" "$TMP/b/exp" "$TMP/other" "$TMP/c/exp" --no-cache
expect_grep "^subject	exp+exp#2+other+exp#3\$" "$TMP/out" "the subject joins the labels"
[ "$(grep -c . "$TMP/out")" -eq 5 ] && ok || fail "not one line per experiment: $(cat "$TMP/out")"
expect_line exp "$TMP/a/exp	steps 1,2,3	$(figures "$TMP/a/exp")	cache unused" "first of three named exp"
expect_line 'exp#2' "$TMP/b/exp	steps 3,4,5	$(figures "$TMP/b/exp")	cache unused" "second named exp"
expect_line other "$TMP/other	steps 1,2,3,4	$(figures "$TMP/other")	cache unused" "a name of its own"
expect_line 'exp#3' "$TMP/c/exp	steps 1,2	$(figures "$TMP/c/exp")	cache unused" "third named exp"
# the order given is kept: the labels follow it, not the paths
expect_exit 0 "$M" "$TMP/c/exp" "$TMP/a/exp" --no-cache
expect_line exp "$TMP/c/exp	steps 1,2	$(figures "$TMP/c/exp")	cache unused" "c/exp given first"
expect_line 'exp#2' "$TMP/a/exp	steps 1,2,3	$(figures "$TMP/a/exp")	cache unused" "a/exp given second"
# one experiment twice is two experiments
expect_exit 0 "$M" "$TMP/other" "$TMP/other/" --no-cache
expect_grep "^subject	other+other#2\$" "$TMP/out" "one folder given twice"

# --- through the cache: the second run reads every experiment from it --------------------------
expect_exit 0 "$M" "$TMP/a/exp" "$TMP/b/exp" --cache-dir "$TMP/cache"
[ "$(grep -c 'cache unused$' "$TMP/out")" -eq 2 ] && ok || fail "a first run found a cache: $(cat "$TMP/out")"
expect_exit 0 "$M" "$TMP/a/exp" "$TMP/b/exp" --cache-dir "$TMP/cache"
[ "$(grep -c 'cache used$' "$TMP/out")" -eq 2 ] && ok || fail "the second run did not use both caches: $(cat "$TMP/out")"
expect_line 'exp#2' "$TMP/b/exp	steps 3,4,5	$(figures "$TMP/b/exp")	cache used" "b/exp from the cache"

# --- --steps applies to each experiment ---------------------------------------------------------
expect_exit 0 "$M" "$TMP/a/exp" "$TMP/b/exp" "$TMP/other" --steps 2-4 --no-cache
expect_line exp "$TMP/a/exp	steps 2,3	$(figures "$TMP/a/exp")	cache unused" "--steps 2-4 on steps 1-3"
expect_line 'exp#2' "$TMP/b/exp	steps 3,4	$(figures "$TMP/b/exp")	cache unused" "--steps 2-4 on steps 3-5"
expect_line other "$TMP/other	steps 2,3,4	$(figures "$TMP/other")	cache unused" "--steps 2-4 on steps 1-4"
# a --steps that selects none of one experiment's steps is an error naming that one, wherever it stands
for order in "a/exp b/exp" "b/exp a/exp"; do
  read -r first second <<<"$order"
  expect_exit 1 "$M" "$TMP/$first" "$TMP/$second" --steps 4- --no-cache
  expect_grep "^rt-test-multi: --steps 4- selects none of the steps of $TMP/a/exp (1 to 3)\$" "$TMP/err" \
    "--steps 4- with $order"
  [ ! -s "$TMP/out" ] && ok || fail "--steps 4- with $order still ran the command"
done
expect_grep "of each EXP.*an EXP with none of them is an error" <("$M" --help) "--help says what --steps does"

# --- every error names its experiment -----------------------------------------------------------
expect_exit 1 "$M" "$TMP/a/exp" "$TMP/missing" --no-cache
expect_grep "^rt-test-multi: $TMP/missing: no such experiment folder" "$TMP/err" "a missing second experiment"
expect_exit 1 "$M" "$TMP/a/exp" "$TMP/a/exp/step_1/worker_0.jsonl" --no-cache
expect_grep "worker_0.jsonl is not a folder" "$TMP/err" "a file as the second experiment"
mkdir -p "$TMP/empty"
expect_exit 1 "$M" "$TMP/empty" "$TMP/a/exp" --no-cache
expect_grep "$TMP/empty.*no step_N folders" "$TMP/err" "an empty first experiment"
state=$(tree_state "$TMP/b")
expect_exit 2 "$M" "$TMP/a/exp" "$TMP/b/exp" --out "$TMP/b/exp/plots"
expect_grep "^rt-test-multi: --out $TMP/b/exp/plots is inside the experiment folder $TMP/b/exp " "$TMP/err" \
  "--out inside the second experiment"
expect_exit 2 "$M" "$TMP/a/exp" "$TMP/b/exp" --cache-dir "$TMP/b/exp/cache"
expect_grep "^rt-test-multi: --cache-dir $TMP/b/exp/cache is inside the experiment folder $TMP/b/exp " \
  "$TMP/err" "--cache-dir inside the second experiment"
expect_tree_unchanged <(echo "$state") "$TMP/b" "the experiment refused as a place to write"
# how many experiments: from min_args to max_args (1 to 4 for rt-test-multi)
expect_exit 2 "$M"
expect_grep "missing argument: expected EXP..." "$TMP/err" "no experiment"
expect_exit 2 "$M" "$TMP/a/exp" "$TMP/a/exp" "$TMP/a/exp" "$TMP/a/exp" "$TMP/a/exp" --no-cache
expect_grep "too many arguments" "$TMP/err" "five experiments"
finish
