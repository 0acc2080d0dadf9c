#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-completion.sh: the bash completion, run by bash itself with bash-completion loaded: it is
# registered for rolltrace and every command of the build's list, offers each command's options
# as its --help lists them, the choices of --format, the event names of both logger generations,
# folders for EXP, and the step numbers of the experiment already on the line.
. "$(dirname "$0")/lib.sh"

SCRIPT="$BUILD/docs/completion/rolltrace"
[ -s "$SCRIPT" ] && ok || { fail "no $SCRIPT: the build makes it"; finish; exit 1; }
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[ -r "$BASH_COMPLETION" ] && ok || fail "bash-completion is not installed ($BASH_COMPLETION)"

# an experiment whose step numbers are not 1..N: 3, 9, 10, 12 (and a folder that is not a step)
"$BUILD/rt-synth" "$TMP/exp" --steps 4 --workers 1 --requests 1 --first-step 9 -q >/dev/null 2>&1
mv "$TMP/exp/step_11" "$TMP/exp/step_3"
mkdir "$TMP/exp/step_x" "$TMP/exp/plots"
cd "$TMP" || exit 1

# complete WORD...: what Tab offers after WORD... (the last WORD is the one being completed,
# "" for a new one; CWORD=N: the N-th), one per line, sorted; as bash calls the function.
cat >"$TMP/complete.sh" <<'EOF'
source "$1"; source "$2"; shift 2
words=("$@")
COMP_WORDS=("${words[@]}")
COMP_CWORD=${CWORD:-$((${#words[@]} - 1))}   # the word being completed: the last, or CWORD
COMP_LINE="${words[*]}"
before="${words[*]:0:COMP_CWORD+1}"
COMP_POINT=${#before}
spec=$(complete -p "${words[0]}" 2>/dev/null) || { echo "no completion for ${words[0]}"; exit 1; }
fn=$(sed -n 's/.*-F \([^ ]*\) .*/\1/p' <<<"$spec")
"$fn" "${words[0]}" "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
complete () { bash --norc --noprofile "$TMP/complete.sh" "$BASH_COMPLETION" "$SCRIPT" "$@"; }

# expect_offers WANT LABEL WORD...: the completion of WORD... is exactly WANT (space-separated)
expect_offers () {
  local want=$1 label=$2; shift 2
  local got; got=$(complete "$@" 2>&1 | tr '\n' ' ' | sed 's/ $//')
  want=$(tr -s ' ' '\n' <<<"$want" | grep . | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] && ok || fail "$label: offered '$got', expected '$want'"
}

# registered for every command
bash --norc --noprofile -c 'source "$1"; source "$2"; complete -p' bash "$BASH_COMPLETION" "$SCRIPT" >"$TMP/specs"
for cmd in $ALL_ANALYZERS rt-synth rolltrace; do
  grep -qx "complete -F _rolltrace $cmd" "$TMP/specs" && ok || fail "no completion registered for $cmd"
done

# every option of each command's --help, and nothing else
for cmd in $ALL_ANALYZERS rt-synth; do
  want=$("$BUILD/$cmd" --help | grep -o -- '^ \+\(-[a-zA-Z], \)\?--[a-z-]*' | grep -o -- '--[a-z-]*' | sort -u | tr '\n' ' ')
  expect_offers "$want" "$cmd --" "$cmd" "--"
done
expect_offers "--event" "rt-cdf --ev" rt-cdf --ev
expect_offers "--steps" "rolltrace cdf --st" rolltrace cdf --st

# option values
expect_offers "png svg pdf" "rt-cdf --format" rt-cdf exp --format ""
expect_offers "svg" "rt-workers --format s" rt-workers exp --format s
expect_offers "v1 v2" "rt-synth --schema (a|b choices)" rt-synth --schema ""
expect_offers "turn_end turn_engine_call" "rt-cdf --event turn_e" rt-cdf exp --event turn_e
expect_offers "engine_call" "rt-cdf --event engine_c (older name)" rt-cdf exp --event engine_c
expect_offers "total total_step_duration" "rt-cdf -e tot" rt-cdf exp -e tot
# step numbers of the experiment typed, ascending, numerically
expect_offers "3 9 10 12" "rt-cdf EXP --steps" rt-cdf exp --steps ""
expect_offers "10 12" "rt-cdf EXP --steps 1" rt-cdf exp --steps 1
expect_offers "3-3 3-9 3-10 3-12" "rt-cdf EXP --steps 3-" rt-cdf exp --steps 3-
expect_offers "9,10 9,12" "rt-cdf EXP --steps 9,1" rt-cdf exp --steps 9,1
expect_offers "3 9 10 12" "rt-workers EXP --step" rt-workers exp --step ""
expect_offers "3 9 10 12" "rolltrace requests EXP --step" rolltrace requests exp --json --step ""
expect_offers "" "--steps without an EXP on the line" rt-cdf --steps ""
CWORD=2 expect_offers "10 12" "rt-cdf --steps 1 EXP: the EXP after the cursor" rt-cdf --steps 1 exp
mkdir -p "$TMP/out-dir/step_77"
expect_offers "3 9 10 12" "rt-cdf --out DIR EXP --steps: DIR is not the EXP" rt-cdf --out out-dir exp --steps ""
# EXP: folders only
mkdir -p "$TMP/expdir-a" && touch "$TMP/expfile"
expect_offers "exp expdir-a" "rt-cdf EXP" rt-cdf exp
# the front: its commands, then theirs
want="help --help --version $(for c in $ALL_ANALYZERS rt-synth; do printf '%s ' "${c#rt-}"; done)"
expect_offers "$want" "rolltrace" rolltrace ""
expect_offers "whatif workers" "rolltrace help w" rolltrace help w

# a command added later is completed from its --help alone, even one without --summary-line:
# here a stand-in for a comparison command whose --align takes step|index
cat >"$TMP/rt-pair" <<'SH'
#!/bin/sh
[ "$1" = --help ] || exit 2
printf 'Usage:\n  rt-pair [OPTION...] EXP...\n\nPairs the steps of two runs. More.\n\n'
printf 'Help Options:\n  -h, --help            Show help options\n\n'
printf 'Application Options:\n  --align=step|index    How steps are paired\n  -s, --steps=SPEC      Only these steps\n'
SH
chmod +x "$TMP/rt-pair"
expect_exit 0 "$PYTHON" "$SRC/packaging/gen-docs.py" --out "$TMP/docs" --version 0 --date 2000-01-01 \
  --events "$BUILD/rt-event-names" --page7 "$SRC/packaging/rolltrace.7.in" \
  --completion "$SRC/packaging/completion.bash.in" rolltrace="$BUILD/rolltrace" rt-pair="$TMP/rt-pair"
SCRIPT="$TMP/docs/completion/rolltrace"
expect_offers "step index" "rt-pair --align" rt-pair exp exp --align ""
expect_offers "3 9 10 12" "rt-pair EXP EXP --steps" rt-pair exp expdir-a --steps ""
expect_offers "pair" "rolltrace p" rolltrace p
zcat "$TMP/docs/man1/rt-pair.1.gz" | grep -qx 'rt\\-pair \\- Pairs the steps of two runs' && ok \
  || fail "the page of a command without --summary-line has no NAME line from its summary"
finish
