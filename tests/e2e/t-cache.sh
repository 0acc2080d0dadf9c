#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cache.sh: the binary cache gives the same answers as reading the JSONL, reads only what
# grew, and is never trusted when it is damaged, cut, from another version or byte order.
. "$(dirname "$0")/lib.sh"

C="$TMP/cachedir"
"$BUILD/rt-synth" "$TMP/exp" --steps 3 --workers 3 --requests 12 --seed 21 --faults --quiet || fail "rt-synth"

# cache_field FIELD: a key of rt-check's "cache" object, from the last run's output
cache_field () { python3 -c "import json,sys; v=json.load(open(sys.argv[1]))['cache'][sys.argv[2]]; print(str(v).lower())" "$TMP/out" "$1"; }
check_cache () { expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --json --cache-dir "$C"; }
expect_field () {
  local got; got=$(cache_field "$1")
  [ "$got" = "$2" ] && ok || fail "$3: cache.$1 is $got, expected $2"
}

# answers_match LABEL: every analyzer answers the same from the cache as without it
answers_match () {
  local q bin args k=0 pairs=()
  analyzer_queries "rt-workers=" "rt-workers=--step 2"
  for q in "${QUERIES[@]}"; do
    bin=${q%% *}; read -r -a args <<<"${q#"$bin"}"
    [ "$bin" = rt-check ] || args+=(--out "$TMP/o" --no-render)
    k=$((k + 1))
    "$BUILD/$bin" "$TMP/exp" "${args[@]}" --json --no-cache >"$TMP/plain-$k.json" 2>/dev/null
    "$BUILD/$bin" "$TMP/exp" "${args[@]}" --json --cache-dir "$C" >"$TMP/cached-$k.json" 2>"$TMP/cached.err"
    pairs+=("$q" "$TMP/plain-$k.json" "$TMP/cached-$k.json")
  done
  # every pair compared by one python (a python each was a third of the test's time)
  python3 - "${pairs[@]}" >"$TMP/differ" <<'PY'
import json, sys
args = sys.argv[1:]
for q, plain, cached in zip(args[0::3], args[1::3], args[2::3]):
    a, b = (json.load(open(p)) for p in (plain, cached))
    a.pop("cache", None); b.pop("cache", None)
    print(("same " if a == b else "differs ") + q)
PY
  [ "$(grep -c '' "$TMP/differ")" = "${#QUERIES[@]}" ] || fail "$1: the answers could not all be compared"
  while read -r verdict q; do
    [ "$verdict" = same ] && ok || fail "$1: $q answers differently with the cache"
  done <"$TMP/differ"
}

check_cache
expect_field used false "first load"
expect_field written true "first load"
check_cache
expect_field used true "second load"
expect_field files_parsed 0 "second load"
expect_field files_resumed 0 "second load"
# only the unterminated last piece of a cut file is read again (the cache never holds it)
[ "$(cache_field bytes_read)" -lt 4096 ] && ok || fail "second load read $(cache_field bytes_read) bytes"
answers_match "an unchanged experiment"

# a file that grew is read only from its last complete line
f="$TMP/exp/step_2/worker_1.jsonl"
cp "$f" "$TMP/whole"
size=$(stat -c %s "$f")
head -c $((size / 2)) "$TMP/whole" >"$TMP/half"
cat "$TMP/half" >"$f"                      # same inode, cut mid-line
check_cache
expect_field files_parsed 1 "after cutting a file"  # shorter than cached: read again
check_cache                                # cached as it is now
cat "$TMP/whole" >"$f"                     # the rest arrives
check_cache
expect_field files_resumed 1 "after the file grew"
read_bytes=$(cache_field bytes_read)
[ "$read_bytes" -gt 0 ] && [ "$read_bytes" -lt "$size" ] && ok \
  || fail "a grown file was read from the start ($read_bytes of $size bytes)"
answers_match "a grown file"

# another file under the same name (new inode) is read again
cp "$f" "$f.new" && mv "$f.new" "$f"
check_cache
expect_field files_parsed 1 "a replaced file"

# a file that is gone, and one that is new
rm "$TMP/exp/step_1/worker_0.jsonl"
check_cache
expect_field written true "a file was removed"
answers_match "a removed file"

# damage of every kind: detected, ignored, rebuilt
cachefile=$(ls "$C"/*.rtc)
damage () {   # damage HOW LABEL: apply HOW to the cache, expect rejection naming WHY
  python3 - "$cachefile" "$1" <<'PY'
import struct, sys
path, how = sys.argv[1], sys.argv[2]
data = bytearray(open(path, "rb").read())
if how == "truncate":
    data = data[: len(data) // 2]
elif how == "byte-order":
    data[8:12] = struct.pack("<I", 0x04030201)
elif how == "version":
    data[24:40] = b"0.0.0-other".ljust(16, b"\0")
elif how == "tables":                # the files table, checked whenever the cache is opened:
    tables_at = struct.unpack_from("<Q", data, 48)[0]   # after the requests (80 bytes), turns
    n_files, n_requests, n_turns, n_problems = struct.unpack_from("<4Q", data, 112)   # (48),
    files_at = tables_at + n_requests * 88 + n_turns * 48 + n_problems * 16   # problems (16)
    data[files_at + 40] ^= 0xFF         # and engine times (8) since format 15
elif how == "rows":
    data[256 + 40] ^= 0xFF          # inside the event rows of the file written first
elif how == "all-rows":             # every file's rows (24 bytes each, from byte 256 to the ids)
    ids_at = struct.unpack_from("<Q", data, 88)[0]
    for at in range(256 + 8, ids_at, 24):
        data[at] ^= 0xFF
elif how == "garbage":
    data = bytearray(b"not a cache at all\n" * 10)
open(path, "wb").write(data)
PY
}
for how in truncate byte-order version tables garbage; do
  check_cache                              # a good cache again
  damage "$how"
  check_cache
  expect_field used false "cache damaged ($how)"
  expect_field written true "cache damaged ($how)"
  [ "$(cache_field rejected)" != none ] && ok || fail "cache damaged ($how): no reason given"
  answers_match "after damage ($how)"
done
check_cache
damage rows                               # rows are checked when first used
expect_exit 0 "$BUILD/rt-cdf" "$TMP/exp" --event turn_engine_call --json --cache-dir "$C" --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/rows-damaged.json"
expect_exit 0 "$BUILD/rt-cdf" "$TMP/exp" --event turn_engine_call --json --no-cache --out "$TMP/o" --no-render
cmp -s "$TMP/out" "$TMP/rows-damaged.json" && ok || fail "damaged rows changed an answer"
check_cache
expect_field used false "after damaged rows were found"   # that cache was removed

# damaged rows of a file that has grown since: it is read again from its first byte
check_cache
# a file with rows (--faults may leave a file empty); rows are written in the order
# files finish loading, so all of them are damaged
first=$(for f in "$TMP/exp"/step_*/worker_*.jsonl; do [ -s "$f" ] && echo "$f"; done | head -n 1)
damage all-rows
head -n 1 "$first" >>"$first"
# read again: the grown file, and every other whose unterminated tail is read each time
tails=$(for f in "$TMP/exp"/step_*/worker_*.jsonl; do
          [ -s "$f" ] && [ "$f" != "$first" ] && [ "$(tail -c 1 "$f" | wc -l)" = 0 ] && echo "$f"
        done | wc -l)
check_cache
expect_field files_parsed $((1 + tails)) "a grown file whose cached rows are damaged"
answers_match "a grown file whose cached rows were damaged"

# two analyzers at once leave a cache that the next one can use
rm -rf "$C"
"$BUILD/rt-cdf" "$TMP/exp" --cache-dir "$C" --quiet --no-render --out "$TMP/o1" &
"$BUILD/rt-events" "$TMP/exp" --cache-dir "$C" --quiet --no-render --out "$TMP/o2" &
wait
check_cache
expect_field used true "after two analyzers at once"
ls "$C"/.rolltrace-* >/dev/null 2>&1 && fail "a temporary cache file was left behind" || ok
answers_match "after two analyzers at once"

# many files grown at once, more than is read without threads: read in parallel,
# each from where it stopped
rm -rf "$C" "$TMP/exp"
"$BUILD/rt-synth" "$TMP/exp" --steps 2 --workers 8 --requests 80 --seed 5 --quiet || fail "rt-synth"
check_cache
python3 - "$TMP/exp" <<'PY'
import glob, sys
for path in glob.glob(sys.argv[1] + "/step_*/worker_*.jsonl"):
    lines = open(path).read().splitlines(keepends=True)
    open(path, "a").write("".join(lines[: len(lines) // 2]))
PY
check_cache
expect_field files_resumed 16 "sixteen grown files"
[ "$(cache_field bytes_read)" -gt $((4 << 20)) ] && ok \
  || fail "expected more than 4 MiB read, got $(cache_field bytes_read)"
answers_match "sixteen grown files"

# --no-cache neither reads nor writes
rm -rf "$C"
expect_exit 0 "$BUILD/rt-check" "$TMP/exp" --no-cache --cache-dir "$C"
[ ! -e "$C" ] && ok || fail "--no-cache wrote a cache"
finish
