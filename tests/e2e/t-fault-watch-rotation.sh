#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fault-watch-rotation.sh: rt-report --watch while a worker file is truncated and rewritten (log
# rotation), a step folder is deleted and comes back, or a step is appended: the next page shows
# the new content, the same page a fresh rt-report --no-cache writes of the tree as it is then
# (never a mix of the old and the new, nor figures kept from a round before). A round that
# cannot be read (the trainer's log rotated away; a folder deleted in the middle of a load) keeps
# the page before, with a note, and does not end the watch; every page read is whole.
. "$(dirname "$0")/lib.sh"

export SOURCE_DATE_EPOCH=1700000000   # pages of the same content are the same bytes
if is_asan; then steps=4 size=(--workers 3 --requests 30); else steps=5 size=(--workers 4 --requests 80); fi
size+=(--steps $steps)
"$BUILD/rt-synth" "$TMP/exp" "${size[@]}" --seed 4 --console-log "$TMP/train.log" --quiet || fail "rt-synth"
"$BUILD/rt-synth" "$TMP/other" "${size[@]}" --seed 5 --quiet || fail "rt-synth"
W="$TMP/exp/step_2/worker_1.jsonl"     # the file rotated
K="$TMP/exp/step_3"                    # the step folder deleted
cp "$W" "$TMP/X" && cp "$TMP/other/step_2/worker_1.jsonl" "$TMP/Y" && cp -a "$K" "$TMP/K"
cmp -s "$TMP/X" "$TMP/Y" && fail "the rotated file's two contents are the same"
PAGE="$TMP/page/index.html"

# norm PAGE: the page without what only a watch writes (the reload, the line on the watch)
norm () {
  sed -e '/http-equiv="refresh"/d' -e 's/ <span class="live">[^<]*<\/span>//' \
      -e 's/ The watch has ended: this is the last page\.//' "$1"
}
# want NAME: the page a fresh rt-report, without the cache, writes of the tree as it is now
want () {
  rm -rf "$TMP/fresh"
  "$BUILD/rt-report" "$TMP/exp" --train "$TMP/train.log" --out "$TMP/fresh" --no-cache --no-render --quiet \
    >/dev/null 2>"$TMP/fresh.err" \
    || fail "rt-report $1: $(head -3 "$TMP/fresh.err")"
  norm "$TMP/fresh/index.html" >"$TMP/want-$1.html"
}
written () { grep -c written "$TMP/watch.out"; }
# next_pages N: N pages more than now are written (30 s at most)
next_pages () {
  local until=$(($(written) + $1))
  for _ in $(seq 300); do [ "$(written)" -ge "$until" ] && return 0; sleep 0.1; done
  fail "--watch wrote no new page in 30 s: $(tail -3 "$TMP/watch.err")"
  return 1
}
# expect_page NAME LABEL: a page begun after the change (the second written since) is the fresh one
expect_page () {
  next_pages 2
  norm "$PAGE" >"$TMP/now.html"
  if cmp -s "$TMP/want-$1.html" "$TMP/now.html"; then ok; else
    fail "$2: the watched page is not the fresh page of the tree:"
    diff "$TMP/want-$1.html" "$TMP/now.html" | head -6 | cut -c 1-200 | sed 's/^/    /' >&2
  fi
}
# whole PAGE: one complete document
whole () { local text; text=$(cat "$1"; echo x); text=${text%x}; [[ $text == '<!DOCTYPE html>'*'</html>'$'\n' ]]; }

"$BUILD/rt-report" "$TMP/exp" --train "$TMP/train.log" --watch 1 --out "$TMP/page" --cache-dir "$TMP/c" --no-render \
  >"$TMP/watch.out" 2>"$TMP/watch.err" &
WATCH=$!
want start
expect_page start "the first pages"

# --- between two pages -------------------------------------------------------------------
# rotated: emptied (copytruncate), then the job writes on: other content
: >"$W"; cat "$TMP/Y" >>"$W"
want rotated
expect_page rotated "a worker file truncated and rewritten"
# rotated again, to fewer lines than the cache holds of it
: >"$W"; head -n 25 "$TMP/X" >>"$W"
want rotated-short
expect_page rotated-short "a worker file truncated and rewritten shorter"
# emptied, nothing written yet
: >"$W"
want emptied
expect_page emptied "a worker file truncated"
# a step folder deleted, then back
rm -rf "$K"
want deleted
expect_page deleted "a step folder deleted"
cp -a "$TMP/K" "$K"; cat "$TMP/X" >"$W"
want start
expect_page start "the step folder back, the first content again"

# a step appended, as the job goes on: the round goes on from the steps the watch kept (all but
# the last two), reads the rest, and its page is the fresh one; then the step goes again
cp -a "$TMP/other/step_$steps" "$TMP/exp/step_$((steps + 1))"
want appended
expect_page appended "a step appended"
rm -rf "$TMP/exp/step_$((steps + 1))"
want start
expect_page start "the appended step removed"

# the trainer's log rotated away: no round can be read until the job starts a new one; the page
# stays as it was, a note says why (once), and the watch goes on
mv "$TMP/train.log" "$TMP/train.log.1"
n=$(written)
for _ in $(seq 50); do grep -q 'note: .*train\.log.*is kept as it was' "$TMP/watch.err" && break; sleep 0.1; done
expect_grep "^rt-report: note: .*train\.log.*: $PAGE is kept as it was; tried again in 1 s" "$TMP/watch.err" \
  "the note of a round that could not be read"
sleep 2.5
kill -0 $WATCH 2>/dev/null && ok || fail "--watch ended when the trainer's log was rotated: $(tail -3 "$TMP/watch.err")"
[ "$(written)" = "$n" ] && ok || fail "a page was written without the trainer's log"
norm "$PAGE" | cmp -s - "$TMP/want-start.html" && ok || fail "the page changed while no round could be read"
[ "$(grep -c 'is kept as it was' "$TMP/watch.err")" = 1 ] && ok || fail "the same note more than once"
cp "$TMP/train.log.1" "$TMP/train.log"
expect_page start "the trainer's new log"

# --- in the middle of loads: for 8 s the folder goes and comes back, the file is rotated ---
(
  end=$((SECONDS + 8))
  while [ $SECONDS -lt $end ]; do
    rm -rf "$K"; : >"$W"; cat "$TMP/Y" >>"$W"; sleep 0.03
    cp -a "$TMP/K" "$K"; : >"$W"; cat "$TMP/X" >>"$W"; sleep 0.05
  done
) &
CHURN=$!
before=$(written) reads=0 torn=0
while kill -0 $CHURN 2>/dev/null; do
  reads=$((reads + 1))
  whole "$PAGE" || torn=$((torn + 1))
  sleep 0.05
done
wait $CHURN
kill -0 $WATCH 2>/dev/null && ok || fail "--watch ended while the trace changed under it: $(tail -3 "$TMP/watch.err")"
[ "$torn" = 0 ] && ok || fail "$torn of $reads pages read while the trace changed were not whole"
[ $(($(written) - before)) -ge 4 ] && ok || fail "only $(($(written) - before)) pages in 8 s of changes"
grep -v -e '^rt-report: note: ' -e '^rolltrace: note: ' -e '^output: ' "$TMP/watch.err" | grep -q . \
  && fail "--watch said more than notes: $(head -3 "$TMP/watch.err")" || ok
want start
expect_page start "after the changes, the tree as it was"

# the end: SIGTERM, the last page whole and still that of the tree
kill -TERM $WATCH
for _ in $(seq 100); do kill -0 $WATCH 2>/dev/null || break; sleep 0.1; done
kill -0 $WATCH 2>/dev/null && { fail "--watch did not stop on SIGTERM"; kill -KILL $WATCH; }
wait $WATCH; status=$?
[ $status -eq 0 ] && ok || fail "--watch ended by SIGTERM with status $status: $(tail -3 "$TMP/watch.err")"
whole "$PAGE" && ok || fail "the last page is not whole"
norm "$PAGE" | cmp -s - "$TMP/want-start.html" && ok || fail "the last page is not the fresh page of the tree"
expect_no_temps "$TMP/page" "--watch stopped by SIGTERM"
finish
