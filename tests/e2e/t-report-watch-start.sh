#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-report-watch-start.sh: rt-report --watch started with the job, before its folder exists: it
# says it waits, then writes pages once the trace appears. Started with & from a script, where
# the shell makes it ignore SIGINT, SIGHUP (its terminal gone) and SIGTERM (kill PID) still end
# it, with the last page complete and no longer reloading itself, and no temporary left.
. "$(dirname "$0")/lib.sh"

EXP="$TMP/runs/exp"
OUT="$TMP/page"
page="$OUT/index.html"
# wait_for PATTERN FILE: up to 30 s
wait_for () { for _ in $(seq 300); do grep -q -- "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# a round of pages more than now
next_page () {
  local n; n=$(grep -c written "$TMP/watch.out")
  for _ in $(seq 100); do [ "$(grep -c written "$TMP/watch.out")" -gt "$n" ] && return 0; sleep 0.1; done
  return 1
}
# stop_with SIGNAL NUMBER: the watch ends on it, with status 0, the last page whole
stop_with () {
  kill -"$1" $WATCH
  for _ in $(seq 100); do kill -0 $WATCH 2>/dev/null || break; sleep 0.1; done
  kill -0 $WATCH 2>/dev/null && { fail "--watch did not stop on SIG$1"; kill -KILL $WATCH; }
  wait $WATCH; local status=$?
  [ $status -eq 0 ] && ok || fail "--watch ended by SIG$1 with status $status: $(tail -3 "$TMP/watch.err")"
  expect_grep "stopped by signal $2: $page is the last page" "$TMP/watch.out" "SIG$1 named as the end"
  text=$(cat "$page"; echo x); text=${text%x}
  case $text in '<!DOCTYPE html>'*'</html>'$'\n') ok ;; *) fail "after SIG$1 the page is not complete" ;; esac
  grep -q 'http-equiv="refresh"' "$page" && fail "after SIG$1 the last page still reloads itself" || ok
  expect_grep 'The watch has ended' "$page" "after SIG$1 the last page says the watch has ended"
  expect_no_temps "$OUT" "--watch stopped by SIG$1"
}

# started before the job has made its folder
"$BUILD/rt-report" "$EXP" --watch 1 --out "$OUT" --cache-dir "$TMP/c" >"$TMP/watch.out" 2>"$TMP/watch.err" &
WATCH=$!
wait_for "waiting for $EXP to appear" "$TMP/watch.out" && ok \
  || fail "--watch on a missing folder says not that it waits: $(cat "$TMP/watch.out" "$TMP/watch.err")"
sleep 1
kill -0 $WATCH 2>/dev/null && ok || fail "--watch on a missing folder did not wait: $(cat "$TMP/watch.err")"
[ "$(grep -c waiting "$TMP/watch.out")" -eq 1 ] && ok || fail "the wait is said more than once"
[ ! -e "$page" ] && ok || fail "a page was written before the experiment existed"
# the job's folder appears, first empty, then with its first step
mkdir -p "$EXP"
sleep 1
kill -0 $WATCH 2>/dev/null && ok || fail "--watch gave up on a folder without a step yet: $(cat "$TMP/watch.err")"
"$BUILD/rt-synth" "$TMP/gen" --steps 3 --workers 2 --requests 4 --seed 3 >/dev/null 2>&1
mv "$TMP/gen/step_1" "$EXP/"
wait_for "written" "$TMP/watch.out" && ok || fail "--watch wrote no page once the folder appeared: $(cat "$TMP/watch.err")"
expect_grep 'http-equiv="refresh" content="1"' "$page" "the watched page reloads itself"
# the job goes on: later pages show its later steps
mv "$TMP/gen/step_2" "$TMP/gen/step_3" "$EXP/"
next_page && next_page && ok || fail "--watch stopped writing pages"
expect_grep '3 steps' "$page" "a later page shows the steps written since"

# SIGINT, which a background job of a script ignores, leaves it running; SIGHUP ends it
kill -INT $WATCH; sleep 1.5
kill -0 $WATCH 2>/dev/null && ok || fail "--watch started with & did not ignore SIGINT"
next_page || fail "--watch wrote no page after the ignored SIGINT"
stop_with HUP 1

# SIGTERM (kill PID) too
"$BUILD/rt-report" "$EXP" --watch 1 --out "$OUT" --cache-dir "$TMP/c" >"$TMP/watch.out" 2>"$TMP/watch.err" &
WATCH=$!
wait_for "written" "$TMP/watch.out" && next_page || fail "the second --watch wrote no page"
stop_with TERM 15

# without --watch a missing folder is an error at once, as always
expect_exit 1 "$BUILD/rt-report" "$TMP/runs/none" --out "$TMP/x" --cache-dir "$TMP/c"
expect_grep "no such experiment folder" "$TMP/err" "rt-report on a missing folder, no --watch"
finish
