#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cache-dir.sh: the cache folder does not grow without bound. `rolltrace cache` lists what it
# holds (experiment, size, age, last use) and prunes it by age or size; the loader, after writing
# a cache, keeps the folder within ROLLTRACE_CACHE_MAX_SIZE (4 GiB by default), the caches used
# longest ago going first; every load that uses a cache marks it used.
. "$(dirname "$0")/lib.sh"

C="$TMP/c"
unset ROLLTRACE_CACHE_MAX_SIZE
for e in a b d; do cp -r "$SRC/fixtures/hand-v2" "$TMP/$e"; done
cp -r "$SRC/fixtures/samples/exp-v1" "$TMP/big"
# cache_of EXP: the cache file of an experiment, as rt-cache --json names it
cache_of () {
  "$BUILD/rt-cache" --cache-dir "$C" --json | "$PYTHON" -c '
import json, sys
for c in json.load(sys.stdin)["caches"]:
    if c["experiment"] == sys.argv[1]: print(c["file"])' "$(realpath "$1")"
}
# listed_order: the experiments' folder names, in the order rt-cache lists them
listed_order () {
  "$BUILD/rt-cache" --cache-dir "$C" --json | "$PYTHON" -c '
import json, os, sys
print(" ".join(os.path.basename(c["experiment"] or c["file"]) for c in json.load(sys.stdin)["caches"]))'
}

# an empty or missing folder holds nothing
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$TMP/none"
expect_grep "^total  *0 B in 0 files" "$TMP/out" "rt-cache of a missing folder"
# through the front, and listed by it
expect_exit 0 "$BUILD/rolltrace" cache --cache-dir "$TMP/none" --json
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["caches"] == [] and d["size"] == 0 and d["max_size"] == 4 << 30' \
  "$TMP/out" && ok || fail "rolltrace cache --json of an empty folder: $(cat "$TMP/out")"
expect_exit 0 "$BUILD/rolltrace" help
expect_grep "^  cache  " "$TMP/out" "rolltrace help lists cache"

# three experiments cached, written and last used at known times
for e in a b d; do expect_exit 0 "$BUILD/rt-check" "$TMP/$e" --cache-dir "$C"; done
ca=$(cache_of "$TMP/a") cb=$(cache_of "$TMP/b") cd_=$(cache_of "$TMP/d")
[ -n "$ca" ] && [ -n "$cb" ] && [ -n "$cd_" ] && ok || fail "rt-cache does not list the three caches: $(cat "$TMP/out")"
touch -d '10 days ago' "$C/$ca"; touch -a -d '9 days ago' "$C/$ca"
touch -d '6 days ago' "$C/$cb"; touch -a -d '5 days ago' "$C/$cb"
touch -d '3 hours ago' "$C/$cd_"; touch -a -d '2 hours ago' "$C/$cd_"
echo "not ours" >"$C/notes.txt"
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C"
expect_grep " 10 d  *9 d  $TMP/a\$" "$TMP/out" "the listing gives a's age and time unused"
expect_grep "3 h  *2 h  $TMP/d\$" "$TMP/out" "the listing gives d's age and time unused"
[ "$(listed_order)" = "a b d" ] && ok || fail "least recently used first: $(listed_order), expected a b d"

# a load from the cache marks it used (whatever the mount's atime policy), and changes not its age
expect_exit 0 "$BUILD/rt-check" "$TMP/d" --cache-dir "$C" --json
expect_grep '"used": true' "$TMP/out" "d loaded from its cache"
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C"
expect_grep "3 h  *[0-9]* s  $TMP/d\$" "$TMP/out" "a cached load marks d used now, its age kept"
expect_exit 0 "$BUILD/rt-check" "$TMP/a" --cache-dir "$C"
[ "$(listed_order)" = "b d a" ] && ok || fail "after using a: $(listed_order), expected b d a"

# --prune --older-than: what no command used for that long
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --prune --older-than 4
expect_grep "^removed .*$TMP/b\$" "$TMP/out" "--older-than 4 removes b, unused for 5 days"
[ ! -e "$C/$cb" ] && [ -e "$C/$ca" ] && [ -e "$C/$cd_" ] && ok || fail "--older-than 4 removed other than b"
[ -e "$C/notes.txt" ] && ok || fail "rt-cache --prune removed a file that is no cache"

# --prune --max-size: the least recently used go until the rest fits
size_d=$(stat -c %s "$C/$cd_")
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --prune --max-size "$size_d" --json
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert [c["file"] for c in d["removed"]] == [sys.argv[2]], d["removed"]
assert [c["file"] for c in d["caches"]] == [sys.argv[3]] and d["size"] == int(sys.argv[4]), d' \
  "$TMP/out" "$cd_" "$ca" "$(stat -c %s "$C/$ca")" && ok || fail "--max-size removed not d alone: $(cat "$TMP/out")"

# the loader keeps the folder within ROLLTRACE_CACHE_MAX_SIZE: after writing big's cache, the
# least recently used (d, then b) go and a, used since, stays
for e in b d; do expect_exit 0 "$BUILD/rt-check" "$TMP/$e" --cache-dir "$C"; done
cb=$(cache_of "$TMP/b") cd_=$(cache_of "$TMP/d")
touch -d '3 days ago' "$C/$cd_"; touch -d '2 days ago' "$C/$cb"; touch -a -d '1 day ago' "$C/$ca"
size_a=$(stat -c %s "$C/$ca")
# the size of big's cache, from a folder of its own: the limit leaves room for a and big alone
expect_exit 0 "$BUILD/rt-check" "$TMP/big" --cache-dir "$TMP/c2"
size_big=$(stat -c %s "$TMP"/c2/*.rtc)
ROLLTRACE_CACHE_MAX_SIZE=$((size_a + size_big + 100)) expect_exit 0 "$BUILD/rt-check" "$TMP/big" --cache-dir "$C"
[ "$(listed_order)" = "a big" ] && ok || fail "the loader's limit left $(listed_order), expected a big"
# one limit lower than the cache just written keeps that one alone
ROLLTRACE_CACHE_MAX_SIZE=1K expect_exit 0 "$BUILD/rt-check" "$TMP/d" --cache-dir "$C"
[ "$(listed_order)" = "d" ] && ok || fail "a limit below one cache left $(listed_order), expected d"
# 0: no limit; a value that is no size: a note that says what to give, and the default
for e in a b; do ROLLTRACE_CACHE_MAX_SIZE=0 expect_exit 0 "$BUILD/rt-check" "$TMP/$e" --cache-dir "$C"; done
[ "$(listed_order)" = "d a b" ] && ok || fail "ROLLTRACE_CACHE_MAX_SIZE=0 removed caches: $(listed_order)"
rm -f "$C/$(cache_of "$TMP/b")"
ROLLTRACE_CACHE_MAX_SIZE=lots expect_exit 0 "$BUILD/rt-check" "$TMP/b" --cache-dir "$C"
expect_grep "ROLLTRACE_CACHE_MAX_SIZE=lots: 'lots' is not a size: give bytes, or a number with K, M, G or T" "$TMP/err" "a bad limit is named"
[ "$(listed_order)" = "d a b" ] && ok || fail "a bad limit removed caches: $(listed_order)"
ROLLTRACE_CACHE_MAX_SIZE=2G expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C"
expect_grep "^limit  *2.0 GiB (from ROLLTRACE_CACHE_MAX_SIZE" "$TMP/out" "rt-cache names the limit in force"

# a write that never finished, a day old, is listed and pruned; a fresh one may be in progress
printf 'partial' >"$C/.rolltrace-old123"; touch -d '2 days ago' "$C/.rolltrace-old123"
printf 'partial' >"$C/.rolltrace-new123"
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C"
expect_grep "\.rolltrace-old123 (a write that never finished)" "$TMP/out" "an old leftover is listed"
if grep -q "new123" "$TMP/out"; then fail "a temporary of a write in progress is listed"; else ok; fi
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --prune --older-than 1
[ ! -e "$C/.rolltrace-old123" ] && [ -e "$C/.rolltrace-new123" ] && ok || fail "--prune: the old leftover stays, or the fresh one went"
# --prune alone: down to the limit in force
ROLLTRACE_CACHE_MAX_SIZE=1 expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --prune
[ "$(listed_order)" = "" ] && ok || fail "--prune with a limit of 1 byte left $(listed_order)"

# a cache and its delta (of a step appended since) are one entry, of their sizes together, and
# go together; a delta whose cache is gone is an entry of its own
"$BUILD/rt-synth" "$TMP/g" --steps 12 --workers 2 --requests 10 --seed 4 --quiet || fail "rt-synth"
mv "$TMP/g/step_12" "$TMP/g-12"
expect_exit 0 "$BUILD/rt-check" "$TMP/g" --cache-dir "$C"
mv "$TMP/g-12" "$TMP/g/step_12"
expect_exit 0 "$BUILD/rt-check" "$TMP/g" --cache-dir "$C"
cg=$(cache_of "$TMP/g")
[ -n "$cg" ] && [ -f "$C/$cg-delta" ] && ok || fail "no cache and delta of g: $(ls -A "$C")"
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --json
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1]))
g = [c for c in d["caches"] if c["file"] == sys.argv[2]]
assert len(d["caches"]) == 1 and g and g[0]["size"] == int(sys.argv[3]) + int(sys.argv[4]), d' \
  "$TMP/out" "$cg" "$(stat -c %s "$C/$cg")" "$(stat -c %s "$C/$cg-delta")" && ok \
  || fail "the cache and delta of g are not one entry of both sizes: $(cat "$TMP/out")"
ROLLTRACE_CACHE_MAX_SIZE=1 expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --prune
[ -z "$(ls -A "$C" | grep -v -e notes.txt -e rolltrace-new123)" ] && ok || fail "--prune left part of g: $(ls -A "$C")"
expect_exit 0 "$BUILD/rt-check" "$TMP/g" --cache-dir "$C"
mv "$TMP/g/step_12" "$TMP/g-12"; rm -f "$C/$cg"
expect_exit 0 "$BUILD/rt-check" "$TMP/g" --cache-dir "$C"
mv "$TMP/g-12" "$TMP/g/step_12"
expect_exit 0 "$BUILD/rt-check" "$TMP/g" --cache-dir "$C"
mv "$C/$cg" "$TMP/g-base"
expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --json
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert [c["file"] for c in d["caches"]] == [sys.argv[2] + "-delta"], d' "$TMP/out" "$cg" && ok \
  || fail "a delta without its cache is not listed alone: $(cat "$TMP/out")"
ROLLTRACE_CACHE_MAX_SIZE=1 expect_exit 0 "$BUILD/rt-cache" --cache-dir "$C" --prune
[ ! -e "$C/$cg-delta" ] && ok || fail "--prune left a delta without its cache"

# usage errors say what to do
expect_exit 2 "$BUILD/rt-cache" --cache-dir "$C" --older-than 3
expect_grep "add --prune" "$TMP/err" "--older-than without --prune"
expect_exit 2 "$BUILD/rt-cache" --cache-dir "$C" --prune --max-size 12Q
expect_grep "\-\-max-size: '12Q' is not a size" "$TMP/err" "--max-size 12Q"
expect_exit 2 "$BUILD/rt-cache" --cache-dir "$C" --prune --older-than -1
expect_grep "not a number of days" "$TMP/err" "--older-than -1"
expect_exit 2 "$BUILD/rt-cache" "$C"
expect_grep "too many arguments" "$TMP/err" "rt-cache DIR"
# it reads no trace: no --verbose offering to list bad input lines
expect_exit 0 "$BUILD/rt-cache" --help
grep -q -- "--verbose" "$TMP/out" && fail "rt-cache --help offers --verbose (bad input lines)" || ok
finish
