#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-html.sh: rt-report's page of an experiment whose folder name, request ids, finish
# reasons and trainer metrics are HTML and script: every one of them is text on the page, the
# page runs nothing but its own table sorter and links nowhere outside its folder.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }

NAME='e<img src=x onerror=alert(1)>&amp;"'"'"'<script>alert(2)<\script>'
EXP="$TMP/$NAME"
"$BUILD/rt-synth" "$EXP" --steps 4 --workers 2 --requests 5 --seed 21 --faults --quiet || fail "rt-synth"
# the slowest requests of every step get ids and finish reasons that are markup; rt-report shows
# the first 8 characters of an id: "<script>" exactly
"$PYTHON" - "$EXP" <<'PY'
import glob, json, os, sys
exp = sys.argv[1]
for step in sorted(glob.glob(os.path.join(glob.escape(exp), "step_*"))):
    for f in sorted(glob.glob(os.path.join(glob.escape(step), "worker_*.jsonl"))):
        out = []
        for line in open(f, encoding="utf-8", errors="surrogateescape"):
            try:
                d = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            extra = d.get("extra") if isinstance(d, dict) else None
            if isinstance(extra, dict) and "request_id" in extra:
                extra["request_id"] = "<script>alert('%s')</script>&" % extra["request_id"]
                if "finish_reason" in extra:
                    extra["finish_reason"] = "FinishReasonTypeEnum.<b onmouseover=alert(3)>&lt;"
            out.append(json.dumps(d) + "\n")
        with open(f, "w", encoding="utf-8", errors="surrogateescape") as w:
            w.writelines(out)
PY
printf 'step:%d - timing_s/gen:%d - timing_s/update_actor:5 - timing_s/step:%d - <img src=x onerror=alert(4)>:1 - a&b"c:2\n' \
  1 40 60 2 41 61 3 42 62 4 43 63 >"$TMP/train.log"
state=$(tree_state "$EXP")

mkdir -p "$TMP/cwd" && cd "$TMP/cwd" || exit 1
expect_safe 0 "$BUILD/rt-report" "$EXP" --train "$TMP/train.log" --compare "$EXP" --cache-dir "$TMP/c"
OUT="$TMP/cwd/rt-out/$NAME/report"
[ -s "$OUT/index.html" ] && ok || fail "no page in the default folder rt-out/NAME/report"
expect_no_temps "$OUT" "rt-report on a hostile experiment"
expect_tree_unchanged <(echo "$state") "$EXP" "the experiment after rt-report"
# inert and self-contained, and every hostile text on the page as it was
expect_safe 0 "$PYTHON" "$SRC/tests/html-check.py" "$OUT/index.html" \
  --text "rolltrace report: $NAME" --text "$NAME#2" --text "<script>" \
  --text "<b onmouseover=alert(3)>&lt;" --text "<img src=x onerror=alert(4)>" --text 'a&b"c'
# the plot titles gnuplot wrote into the SVG hold the folder name escaped by gnuplot itself
grep -q 'e&lt;img src=x onerror=alert(1)&gt;&amp;amp;' "$OUT/index.html" && ok \
  || fail "gnuplot's SVG title does not hold the folder name escaped"
grep -q '<img' "$OUT/index.html" && fail "an <img> element on the page" || ok
[ "$(grep -c '<script' "$OUT/index.html")" -eq 1 ] && ok || fail "more than rt-report's one <script> on the page"
# --json carries the same texts as JSON strings
expect_safe 0 "$BUILD/rt-report" "$EXP" --json --out "$TMP/o-json" --cache-dir "$TMP/c" --no-render
cp "$TMP/out" "$TMP/report.json"
expect_safe 0 "$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["sections"][0] == "overview"' "$TMP/report.json"
cd "$TMP" && finish
