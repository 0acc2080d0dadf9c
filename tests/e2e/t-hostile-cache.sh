#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-cache.sh: hostile input, classes 6 and 9 of issue 10: a damaged cache is only ever a
# slower run, and the cache never answers for a file that changed, however it changed.
. "$(dirname "$0")/lib.sh"

# every analyzer once (rt-workers and rt-events read the step sums, the others the rows)
analyzer_queries "rt-workers=--step 1" "rt-requests=--step 1 --top 20"
C="$TMP/cache-dir"

# warm EXP: every analyzer runs once with the cache in $C, which is then kept in $C.warm
warm () {
  rm -rf "$C" "$C.warm"
  expect_safe 0 "$BUILD/rt-check" "$1" --cache-dir "$C" --quiet
  cp -a "$C" "$C.warm"
}
# answers LABEL EXP: every query answers from the cache kept in $C.warm (put back before each,
# so that each faces the old cache) as it does reading every file, and from the cache it left
answers () {
  local label=$1 exp=$2 q cmd run
  local state; state=$(tree_state "$exp")
  for q in "${QUERIES[@]}"; do
    cmd=${q%% *}; read -r -a extra <<<"${q#"$cmd"}"
    [ "$cmd" = rt-check ] || extra+=(--out "$TMP/o" --no-render)
    expect_safe 0 "$BUILD/$cmd" "$exp" "${extra[@]}" --json --no-cache
    cp "$TMP/out" "$TMP/want.json"
    rm -rf "$C" && cp -a "$C.warm" "$C"
    for run in "the old cache" "the cache it left"; do
      expect_safe 0 "$BUILD/$cmd" "$exp" "${extra[@]}" --json --cache-dir "$C"
      expect_same_answer "$TMP/want.json" "$TMP/out" "$label: $q from $run"
    done
    expect_only_rtc "$C" "$label: $q"
  done
  expect_no_temps "$TMP/o" "$label: the analyzers' --out"
  expect_tree_unchanged <(echo "$state") "$exp" "$label: the experiment"
}
# other_content FILE: FILE's bytes with the fraction digits of every number reversed: the same
# size and shape, other timestamps and durations from the first line on
other_content () {
  "$PYTHON" -c 'import re, sys; sys.stdout.write(re.sub(r"(\d\.)(\d+)", lambda m: m.group(1) + m.group(2)[::-1], open(sys.argv[1]).read()))' "$1"
}

# --- class 6: flipped bytes in the cache's event rows, and a file rewritten in place ----------
"$BUILD/rt-synth" "$TMP/exp6" --steps 2 --workers 3 --requests 6 --seed 4 --quiet || fail "rt-synth"
warm "$TMP/exp6"
"$PYTHON" - "$C.warm" <<'PY' || fail "could not damage the cache"
import glob, struct, sys
(path,) = glob.glob(sys.argv[1] + "/*.rtc")
data = bytearray(open(path, "rb").read())
# the event rows lie between the 256-byte header and the request ids (offset at byte 88); if
# the layout ever changes, the middle of the file is still mostly rows
ids_at = struct.unpack_from("<Q", data, 88)[0]
lo, hi = (256, ids_at) if 256 + 128 < ids_at <= len(data) else (0, len(data))
mid = (lo + hi) // 2
for k in range(mid - 32, mid + 32):
    data[k] ^= 0xA5
open(path, "wb").write(data)
PY
f="$TMP/exp6/step_1/worker_1.jsonl"
other_content "$f" >"$TMP/other"
cmp -s "$f" "$TMP/other" && fail "other_content changed nothing"
[ "$(stat -c %s "$f")" = "$(stat -c %s "$TMP/other")" ] && ok || fail "other_content changed the size"
cat "$TMP/other" >"$f"
answers "damaged cache rows and a file rewritten in place" "$TMP/exp6"
expect_safe 0 "$BUILD/rt-requests" "$TMP/exp6" --step 1 --cache-dir "$C" --out "$TMP/o" --no-render
grep -q -a 'GLib-\(ERROR\|CRITICAL\)' "$TMP/err" && fail "a GLib error on a damaged cache: $(head -c 300 "$TMP/err")" || ok

# --- class 9 (a): the same size, the mtime set back ----------------------------------------
"$BUILD/rt-synth" "$TMP/exp9a" --steps 2 --workers 3 --requests 6 --seed 5 --quiet || fail "rt-synth"
warm "$TMP/exp9a"
f="$TMP/exp9a/step_2/worker_0.jsonl"
touch -r "$f" "$TMP/times"
before=$(stat -c '%s %.9Y %i' "$f")
other_content "$f" >"$TMP/other"
cat "$TMP/other" >"$f"
touch -r "$TMP/times" "$f"
[ "$(stat -c '%s %.9Y %i' "$f")" = "$before" ] && ok || fail "the rewritten file's size, mtime or inode changed"
answers "a file rewritten with its size and mtime kept" "$TMP/exp9a"
# the same with `touch -d @SECONDS` (whole seconds, as a copy that keeps times may leave them)
rm -rf "$TMP/exp9a" && "$BUILD/rt-synth" "$TMP/exp9a" --steps 2 --workers 3 --requests 6 --seed 5 --quiet
touch -d @1700000000 "$f"
warm "$TMP/exp9a"
other_content "$f" >"$TMP/other"
cat "$TMP/other" >"$f"
touch -d @1700000000 "$f"
answers "a file rewritten, touch -d @1700000000" "$TMP/exp9a"

# --- class 9 (b): the same inode, longer content whose first bytes differ ---------------------
"$BUILD/rt-synth" "$TMP/exp9b" --steps 2 --workers 3 --requests 6 --seed 6 --quiet || fail "rt-synth"
warm "$TMP/exp9b"
f="$TMP/exp9b/step_1/worker_2.jsonl"
inode=$(stat -c %i "$f")
{ printf '{"timestamp": "2025-06-10T08:59:59.500000", "event": "sorting_duration", "duration_sec": 0.25, "workid": 2, "step": 1}\n'
  other_content "$f"; other_content "$TMP/exp9b/step_1/worker_0.jsonl" | head -n 20; } >"$TMP/other"
[ "$(head -c 64 "$f")" != "$(head -c 64 "$TMP/other")" ] && ok || fail "the new content begins as the old"
cat "$TMP/other" >"$f"
[ "$(stat -c %i "$f")" = "$inode" ] && ok || fail "the file was not rewritten in place"
answers "a file rewritten in place, longer" "$TMP/exp9b"

# --- class 9 (c): the experiment deleted and generated again in the same place ----------------
"$BUILD/rt-synth" "$TMP/exp9c" --steps 3 --workers 3 --requests 6 --seed 7 --quiet || fail "rt-synth"
warm "$TMP/exp9c"
rm -rf "$TMP/exp9c"
"$BUILD/rt-synth" "$TMP/exp9c" --steps 3 --workers 3 --requests 6 --seed 8 --quiet || fail "rt-synth"
answers "an experiment generated again with another seed" "$TMP/exp9c"
finish
