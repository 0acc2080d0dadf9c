#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-report.sh: rt-report's page read by a real browser (headless Chromium, tests/browser-check.py):
# every section and every finding of the fixture there, every inline SVG drawn with a size, nothing
# fetched from outside the file, no console error; then --watch while a writer appends to a copy.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }
command -v chromium >/dev/null || command -v chromium-headless-shell >/dev/null \
  || { echo "FAIL: chromium is not installed (make deps installs it)"; exit 1; }
FIX="$SRC/fixtures/findings"

# --- the page of the experiment that fires every rule, with a trainer log and a comparison --------
expect_exit 0 "$BUILD/rt-report" "$FIX/yes" --train "$FIX/yes-train.log" --compare "$FIX/no" --json \
  --out "$TMP/page" --cache-dir "$TMP/c"
cp "$TMP/out" "$TMP/report.json"
expect_exit 0 "$PYTHON" "$SRC/tests/browser-check.py" "$TMP/page/index.html" "$TMP/browser"
"$PYTHON" - "$TMP/report.json" "$TMP/browser.json" "$TMP/browser.dom.html" >"$TMP/verdict" <<'PY'
import html, json, sys
report, seen, dom = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
rules = ["straggler", "trainer_mismatch", "barrier_share", "long_tail", "truncation", "context_growth",
         "tool_time", "outlier_steps", "data_quality", "rollout_share"]
sections = ["overview", "tail", "why_tail", "workers", "requests", "turns", "timeline", "sections", "trainer",
            "quality", "comparison"]
def check(cond, what):
    print(("ok " if cond else "FAIL ") + what)
check([f["id"] for f in report["findings"]] == rules, "--json lists every rule, ranked: %s" % [f["id"] for f in report["findings"]])
check(report["sections"] == sections, "--json lists the sections: %s" % report["sections"])
check(seen["findings"] == rules, "the browser shows every finding in order: %s" % seen["findings"])
check(seen["sections"] == ["findings"] + sections, "the browser shows every section: %s" % seen["sections"])
for f in report["findings"]:
    check(html.escape(f["title"], quote=False) in dom or f["title"] in dom, "the page holds the title of %s" % f["id"])
check(len(seen["svgs"]) >= 10, "%d inline SVGs, expected one per plot (10 or more)" % len(seen["svgs"]))
for s in seen["svgs"]:
    check(s["size"][0] > 100 and s["size"][1] > 100, "SVG %s drawn at %s" % (s["plot"], s["size"]))
check(seen["requests"] == ["file://" + sys.argv[1].rsplit("/", 1)[0].replace("report.json", "") + "page/index.html"]
      or (len(seen["requests"]) == 1 and seen["requests"][0].endswith("/page/index.html")),
      "nothing fetched but the page itself: %s" % seen["requests"])
check(seen["console_errors"] == [], "no console error: %s" % seen["console_errors"])
check(not seen["refresh"], "no self-reload without --watch")
compare_plots = ["compare_cdf", "compare_steps", "compare_throughput", "compare_hist", "compare_turns",
                 "compare_turn_dist", "compare_events"]
drawn = [s["plot"] for s in seen["svgs"]]
check(all("plot-" + p in drawn for p in compare_plots), "the comparison draws rt-compare's seven plots: %s" % drawn)
comparison = dom[dom.index('id="comparison"'):]
check(comparison.count("<table") == 3, "the comparison shows the experiments, the ratios and KS test, and the mix's bins")
check("plot-compare_mix_2" in drawn, "the comparison draws the mix split (compare_mix_2)")
check([v["label"] for v in report["comparison"]["versus"]] == ["no"], "--json's comparison has the versus entry of no")
check("plot-tail" in drawn and "plot-whatif" in drawn, "the tail's section draws its causes and the policies")
check("<td>no</td>" in comparison and "<td>yes</td>" in comparison, "the comparison names both experiments")
PY
while read -r verdict what; do
  [ "$verdict" = ok ] && ok || fail "$what"
done <"$TMP/verdict"
[ -s "$TMP/browser.png" ] && head -c 8 "$TMP/browser.png" | od -An -c | grep -q 'P   N   G' && ok \
  || fail "no screenshot of the page"
expect_safe 0 "$PYTHON" "$SRC/tests/html-check.py" "$TMP/browser.dom.html"
# the experiment that fires nothing: a page that says so
expect_exit 0 "$BUILD/rt-report" "$FIX/no" --json --out "$TMP/page-no" --cache-dir "$TMP/c" --no-render
expect_grep '"findings": \[\]' "$TMP/out" "no finding on the quiet fixture"
expect_grep 'No rule fired' "$TMP/page-no/index.html" "the quiet page says no rule fired"

# the comparison's figures are rt-compare's, the same experiments given to it
expect_exit 0 "$BUILD/rt-compare" "$FIX/yes" "$FIX/no" --json --out "$TMP/cmp" --cache-dir "$TMP/c" --no-render
for t in experiments versus steps; do
  cmp -s "$TMP/cmp/compare_$t.tsv" "$TMP/page/compare_$t.tsv" && ok || fail "the report's compare_$t.tsv is not rt-compare's"
done
# and its mix split is rt-compare --mix turns's, in the JSON and the table
expect_exit 0 "$BUILD/rt-compare" "$FIX/yes" "$FIX/no" --mix turns --json --out "$TMP/cmp-mix" --cache-dir "$TMP/c" \
  --no-render
expect_eq "$("$PYTHON" -c 'import json, sys
a = json.load(open(sys.argv[1]))["versus"][0]["mix"]
b = json.load(open(sys.argv[2]))["comparison"]["versus"][0]["mix"]
print(a == b)' "$TMP/out" "$TMP/report.json")" "True" "the report's mix is rt-compare --mix turns's"
cmp -s "$TMP/cmp-mix/compare_mix_2.tsv" "$TMP/page/compare_mix_2.tsv" && ok || fail "the report's compare_mix_2.tsv is not rt-compare's"

# --- usage and data errors ---------------------------------------------------------------------------
# an experiment without a rollout time or a request: the page says so, exit 1
mkdir -p "$TMP/bare/step_1"
echo '{"timestamp": "2025-01-01T10:00:01", "event": "preprocessing_duration", "duration_sec": 1.0, "workid": 0, "step": 1}' \
  >"$TMP/bare/step_1/worker_0.jsonl"
expect_exit 1 "$BUILD/rt-report" "$TMP/bare" --out "$TMP/bare-page" --cache-dir "$TMP/c"
expect_grep '^rt-report: no selected step has a rollout time' "$TMP/err" "no data is said on stderr"
expect_grep 'there is no rollout time to show' "$TMP/bare-page/index.html" "the page of no data says why"
expect_exit 2 "$BUILD/rt-report" "$FIX/yes" --watch 0 --out "$TMP/x"
expect_grep '^rt-report: --watch' "$TMP/err" "--watch 0 is a usage error"
expect_exit 2 "$BUILD/rt-report" "$FIX/yes" --watch 5 --json --out "$TMP/x"
expect_exit 1 "$BUILD/rt-report" "$TMP/nowhere"
expect_grep '^rt-report: ' "$TMP/err" "a missing experiment is named"

# --- --watch: a writer appends the last step while the page is rewritten -----------------------------
LIVE="$TMP/live/exp"
mkdir -p "$LIVE"
cp -r "$FIX/no/." "$LIVE/"
# step 6 is being written: its files hold their first 6 lines (one request of two), the rest comes later
for f in "$LIVE"/step_6/worker_*.jsonl; do
  cp "$f" "$f.full"; head -n 6 "$f.full" >"$f"
done
"$BUILD/rt-report" "$LIVE" --watch 1 --out "$TMP/live/page" --cache-dir "$TMP/c" >"$TMP/watch.out" 2>"$TMP/watch.err" &
WATCH=$!
page="$TMP/live/page/index.html"
for _ in $(seq 100); do [ -s "$page" ] && break; sleep 0.1; done
[ -s "$page" ] && ok || fail "--watch wrote no first page"
expect_grep 'http-equiv="refresh" content="1"' "$page" "the watched page reloads itself"
expect_grep 'step 6 is still running' "$page" "the watched page names the step still running"
expect_grep '33 completed' "$page" "the first page counts the requests written so far"
for _ in $(seq 50); do grep -q written "$TMP/watch.out" && break; sleep 0.1; done
expect_grep "^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] $page written in [0-9]*\.[0-9][0-9] s (step 6 running)\$" "$TMP/watch.out" \
  "each page's line says how long its round took"
# the writer: the rest of each file in pieces, a line cut in two on the way
(
  for f in "$LIVE"/step_6/worker_*.jsonl; do
    tail -n +7 "$f.full" | head -c 300 >>"$f"; sleep 0.4
    tail -n +7 "$f.full" | tail -c +301 >>"$f"; sleep 0.4
  done
  rm "$LIVE"/step_6/*.full
) &
WRITER=$!
# the reader: every page read whole, a page at a time, until one shows every line
reads=0 torn=0 last=""
for _ in $(seq 300); do
  text=$(cat "$page"; echo x)
  text=${text%x}
  reads=$((reads + 1))
  case $text in '<!DOCTYPE html>'*'</html>'$'\n') ;; *) torn=$((torn + 1)) ;; esac
  last=$text
  if ! kill -0 $WRITER 2>/dev/null && [[ $text == *'36 completed'* ]] && [[ $text == *'no step is being written'* ]]; then break; fi
  sleep 0.05
done
wait $WRITER
[ $torn -eq 0 ] && ok || fail "$torn of $reads pages read were not complete"
[ $reads -ge 10 ] && ok || fail "only $reads reads of the page"
[[ $last == *'36 completed'* ]] && ok || fail "the last page read does not show the appended requests (36)"
[[ $last == *'no step is being written'* ]] && ok || fail "the last page read still shows a step being written"
# SIGTERM during the wait: the last page again, complete, and no longer reloading itself
n=$(grep -c written "$TMP/watch.out")
for _ in $(seq 50); do [ "$(grep -c written "$TMP/watch.out")" -gt "$n" ] && break; sleep 0.1; done
kill -TERM $WATCH
for _ in $(seq 100); do kill -0 $WATCH 2>/dev/null || break; sleep 0.1; done
kill -0 $WATCH 2>/dev/null && { fail "--watch did not stop on SIGTERM"; kill -KILL $WATCH; }
wait $WATCH; status=$?
[ $status -eq 0 ] && ok || fail "--watch ended by SIGTERM with status $status: $(tail -3 "$TMP/watch.err")"
grep -q 'http-equiv="refresh"' "$page" && fail "the last page still reloads itself" || ok
expect_grep 'The watch has ended' "$page" "the last page says the watch has ended"
expect_grep '36 completed' "$page" "the last page keeps the last figures"
expect_no_temps "$TMP/live/page" "--watch stopped by SIGTERM"
finish
