#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-request-view.sh: following one request (rt-requests --id) on fixtures/request-view, worked by
# hand: its lines nested and in time, its gaps, in text and JSON; a prefix, an ambiguous and a
# missing id; --full-ids; the truncation line; the nested phases of request_K_step_N; and
# rt-report's sections of the slowest requests.
source "$(dirname "$0")/lib.sh" "$@"
EXP="$SRC/fixtures/request-view"
A=a1b2c3d4-0000-4000-8000-000000000001

# The request starts at 10:00:10 (its request_start, and its complete line: 10:00:20 - 10 s).
# Its innermost lines with a length: pending 0.0005-0.0015, turn_pre_process 0.2-0.5, the
# generation 1.1-3.9, tool_execution 5-7, turn 1's engine call 7.5-9.5. What they leave of
# [0, 10]: 0-0.0005 (under 1 ms: counted, not shown), then the gaps 0.0015-0.2, 0.5-1.1,
# 3.9-5, 7-7.5 and 9.5-10, each under the shortest line that holds it (main_loop is 0.1-9.9,
# turn 0's turn_end 0.2-4.2). Rows: depth, event (gap: "-"), turn ("-": none), start, end,
# duration ("-": an instant line).
cat >"$TMP/want.tsv" <<'EOF'
0	request_start	-	0	0	-
0	async_rollout_request_complete	-	0	10	10
1	pending_state_handling	-	0.0005	0.0015	0.001
1	gap	-	0.0015	0.2	0.1985
1	main_loop	-	0.1	9.9	9.8
2	turn_start	0	0.2	0.2	-
2	turn_end	0	0.2	4.2	4
3	turn_pre_process	0	0.2	0.5	0.3
3	gap	-	0.5	1.1	0.6
3	turn_engine_call	0	1	4	3
4	engine_async_generate_actual	-	1.1	3.9	2.8
2	gap	-	3.9	5	1.1
2	tool_calling_state	1	4.5	7	2.5
3	tool_execution	1	5	7	2
2	gap	-	7	7.5	0.5
2	turn_start	1	7.5	7.5	-
2	turn_end	1	7.5	9.6	2.1
3	turn_engine_call	1	7.5	9.5	2
1	gap	-	9.5	10	0.5
EOF

# compare_rows GOT WANT LABEL: the rows agree, times to 1e-6 s
compare_rows () {
  if python3 - "$1" "$2" >"$TMP/diff" 2>&1 <<'PY'
import sys
got = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
want = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
if len(got) != len(want):
    sys.exit(f"{len(got)} rows, expected {len(want)}")
for i, (g, w) in enumerate(zip(got, want)):
    for k, (a, b) in enumerate(zip(g, w)):
        if k >= 3 and b != "-":
            if a == "-" or abs(float(a) - float(b)) > 1e-6:
                sys.exit(f"row {i}: {g} against {w}")
        elif a != b:
            sys.exit(f"row {i}: {g} against {w}")
PY
  then ok; else fail "$3:"; sed 's/^/    /' "$TMP/diff" >&2; fi
}

# text: a unique beginning of the id is enough
expect_exit 0 "$BUILD/rt-requests" "$EXP" --id a1b2 --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/text"
expect_grep "^request a1b2c3d4, step 1, worker 0: 10.00 s, 2 turns, 4096 tokens, LENGTH$" "$TMP/text" "--id header"
expect_grep "^14 lines, 5 gaps of 1 ms or more (2.898500 s), 1 shorter (0.000500 s)" "$TMP/text" "--id counts"
if grep -q "$A" "$TMP/text"; then fail "--id without --full-ids shows the whole id"; else ok; fi
# the rows: the indentation (two spaces a level) after the turn column is the depth
awk 'NR > 3 && !/^output:/ {
       ev = substr($0, 44); depth = 0
       while (substr(ev, 1, 2) == "  ") { depth++; ev = substr(ev, 3) }
       if (ev == "(gap: nothing logged)") ev = "gap"
       printf "%d\t%s\t%s\t%s\t%s\t%s\n", depth, ev, $4, $1, $2, $3
     }' "$TMP/text" >"$TMP/got.tsv"
compare_rows "$TMP/got.tsv" "$TMP/want.tsv" "rt-requests --id text rows"

# JSON: the same rows, the whole id, the counts
expect_exit 0 "$BUILD/rt-requests" "$EXP" --id a1b2 --json --out "$TMP/o" --no-render
python3 - "$TMP/out" >"$TMP/got.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["lines"]:
    ev = "gap" if r["phase"] == "gap" else r["event"]
    dash = lambda v: "-" if v is None else str(v)
    print("\t".join([str(r["depth"]), ev, dash(r["turn"]), str(r["start_s"]), str(r["end_s"]), dash(r["duration_s"])]))
PY
compare_rows "$TMP/got.tsv" "$TMP/want.tsv" "rt-requests --id --json lines"
python3 - "$TMP/out" "$A" <<'PY' && ok || fail "rt-requests --id --json: id or counts wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["request_id"] == sys.argv[2] and d["step"] == 1 and d["worker"] == 0, d
assert d["line_count"] == 14 and d["gaps"] == 5 and d["short_gaps"] == 1 and d["nested"] is True, d
assert abs(d["gap_s"] - 2.8985) < 1e-6 and abs(d["short_gap_s"] - 0.0005) < 1e-6, d
assert d["finish_reason"] == "LENGTH" and d["response_length"] == 4096, d
PY

# its plot: request_ID, a Gantt titled with the request and the step
expect_exit 0 "$BUILD/rt-requests" "$EXP" --id "$A" --out "$TMP/plot" --no-render
expect_grep "set title 'request-view: request a1b2c3d4, step 1, worker 0" "$TMP/plot/request_$A.gp" "request_ID title"
expect_grep "^gap	" "$TMP/plot/request_$A.tsv" "request_ID data holds the gaps"

# ambiguous: both listed whole, exit 2; unique beginning; none: exit 1; --id with --step: usage
expect_exit 2 "$BUILD/rt-requests" "$EXP" --id bbbb --out "$TMP/o" --no-render
expect_grep "bbbb0000-0000-4000-8000-000000000002, step 1, worker 1" "$TMP/err" "ambiguous --id lists the first"
expect_grep "bbbb1111-0000-4000-8000-000000000003, step 1, worker 1" "$TMP/err" "ambiguous --id lists the second"
expect_exit 0 "$BUILD/rt-requests" "$EXP" --id bbbb1 --out "$TMP/o" --no-render --full-ids
expect_grep "^request bbbb1111-0000-4000-8000-000000000003, step 1, worker 1: 4.00 s" "$TMP/out" "--id --full-ids"
expect_exit 1 "$BUILD/rt-requests" "$EXP" --id zzzz --out "$TMP/o" --no-render
expect_grep "no request id begins with 'zzzz'" "$TMP/err" "missing --id says so"
expect_exit 1 "$BUILD/rt-requests" "$EXP" --id a1b2 --steps 2- --out "$TMP/o" --no-render
expect_exit 2 "$BUILD/rt-requests" "$EXP" --id a1b2 --step 1 --out "$TMP/o" --no-render

# the slowest: a 8-character id, whole with --full-ids; the truncation line (a: LENGTH, 4096 tokens)
expect_exit 0 "$BUILD/rt-requests" "$EXP" --step 1 --out "$TMP/top" --no-render
expect_grep "^  #1 a1b2c3d4, worker 0: 10.00 s" "$TMP/out" "slowest, id shortened"
expect_grep "^truncation: 1 of the 3 slowest ended on the length limit (LENGTH, up to 4096 tokens)$" "$TMP/out" \
  "truncation line"
expect_exit 0 "$BUILD/rt-requests" "$EXP" --step 1 --full-ids --out "$TMP/top" --no-render
expect_grep "^  #1 $A, worker 0: 10.00 s" "$TMP/out" "slowest --full-ids"
expect_exit 0 "$BUILD/rt-requests" "$EXP" --step 1 --top 2 --json --out "$TMP/top" --no-render
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["at_length"] != 1)' "$TMP/out" && ok \
  || fail "rt-requests --json at_length is not 1"
expect_exit 0 "$BUILD/rt-requests" "$EXP" --step 1 --top 3 --out "$TMP/top2" --no-render
if grep -q "^truncation" "$TMP/out"; then ok; else fail "no truncation line"; fi
expect_exit 0 "$BUILD/rt-requests" "$EXP" --step 1 --worker 1 --out "$TMP/top3" --no-render
if grep -q "^truncation" "$TMP/out"; then fail "a truncation line without a LENGTH request"; else ok; fi

# request_1_step_1: each phase under the one that holds it, and the step in the title
printf '%s\n' "async_rollout_request_complete	0	NaN" "pending_state_handling	1	async_rollout_request_complete" \
  "main_loop	1	async_rollout_request_complete" "turn_end	2	main_loop" "turn_pre_process	3	turn_end" \
  "turn_engine_call	3	turn_end" "engine_async_generate_actual	4	turn_engine_call" \
  "tool_calling_state	2	main_loop" "tool_execution	3	tool_calling_state" >"$TMP/want-phases"
cut -f1,3,4 "$TMP/top/request_1_step_1.tsv" | tail -n +2 >"$TMP/got-phases"
if diff "$TMP/want-phases" "$TMP/got-phases" >"$TMP/diff"; then ok; else
  fail "request_1_step_1 phases not nested:"; sed 's/^/    /' "$TMP/diff" >&2; fi
expect_grep "set title 'request-view: step 1, #1 a1b2c3d4, worker 0" "$TMP/top/request_1_step_1.gp" \
  "request_K_step_N title names the step"

# rt-report: the slowest list links the first five to sections of their own, each with its view
expect_exit 0 "$BUILD/rt-report" "$EXP" --out "$TMP/report" --no-render
page="$TMP/report/index.html"
for k in 1 2 3; do
  expect_grep "<li><a href=\"#request-$k\">#$k " "$page" "report links request $k"
  expect_grep "<h3 class=\"request\" id=\"request-$k\">" "$page" "report section of request $k"
done
expect_grep "<figure id=\"plot-request_$A\">" "$page" "report draws request a's lines"
expect_grep "<a href=\"request_$A.tsv\">" "$page" "report links request a's data"
expect_grep "<p class=\"truncation\">truncation: 1 of the 3 slowest" "$page" "report truncation line"
expect_grep "<code>$A</code>" "$page" "report section shows the whole id"
[ -s "$TMP/report/request_$A.gp" ] && ok || fail "rt-report wrote no request_$A.gp"

# a request of more lines than RT_REQUEST_NEST_MAX (5,000) is shown flat: every line and gap at
# depth 0, by start, then in line order; its 6,000 lines here written latest first. (Linked one
# by one, a flat view walked its list for each line: 12 s for 70,000 lines.)
mkdir -p "$TMP/many/step_1"
"$PYTHON" - "$TMP/many/step_1/worker_0.jsonl" <<'PY'
import json, sys
lines = [{"timestamp": f"2025-06-10T10:{59 - k // 100:02d}:{59 - (k % 100) * 0.5:09.6f}", "event": "tool_execution",
          "duration_sec": 0.25, "extra": {"request_id": "many"}} for k in range(6000)]
lines.append({"timestamp": "2025-06-10T11:00:00", "event": "async_rollout_request_complete",
              "duration_sec": 3600.0, "extra": {"request_id": "many", "turns": 1}})
open(sys.argv[1], "w").writelines(json.dumps(l) + "\n" for l in lines)
PY
expect_exit 0 "$BUILD/rt-requests" "$TMP/many" --id many --json --no-cache --no-render --out "$TMP/many-out"
"$PYTHON" - "$TMP/out" <<'PY' && ok || fail "the flat view of 6,000 lines is not in start order at depth 0"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nested"] is False and d["line_count"] == 6001, (d["nested"], d["line_count"])
starts = [l["start_s"] for l in d["lines"]]
assert all(l["depth"] == 0 for l in d["lines"])
assert starts == sorted(starts), "not by start"
assert sum(1 for l in d["lines"] if l["event"] == "tool_execution") == 6000
PY

finish
