#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cache-stale.sh: a run from the cache answers as a fresh load does, whatever happened to the files
# since (rewritten in place, times put back, regenerated), and a damaged cache is only a slower run.
. "$(dirname "$0")/lib.sh"

E="$TMP/exp"
C="$TMP/cachedir"
SAVED="$TMP/saved-cache"
synth () {   # synth SEED [ARGS...]
  rm -rf "$E"
  "$BUILD/rt-synth" "$E" --steps 2 --workers 3 --requests 12 --seed "$@" --quiet || fail "rt-synth"
}

# make_cache: a cache of the experiment as it is now, kept aside for answers_match
make_cache () {
  rm -rf "$C" "$SAVED"
  expect_exit 0 "$BUILD/rt-check" "$E" --json --cache-dir "$C"
  cp -a "$C" "$SAVED"
}

# answers_match LABEL: every analyzer, each starting from the cache kept by make_cache (the first
# run would otherwise mend it for the others), exits 0 and answers as a fresh load does
answers_match () {
  local args bin status
  for bin in $EXP_ANALYZERS; do
    args=()
    [ "$bin" = rt-check ] || args=(--out "$TMP/o" --no-render)
    "$BUILD/$bin" "$E" "${args[@]}" --json --no-cache >"$TMP/plain.json" 2>/dev/null
    rm -rf "$C" && cp -a "$SAVED" "$C"
    "$BUILD/$bin" "$E" "${args[@]}" --json --cache-dir "$C" >"$TMP/cached.json" 2>"$TMP/cached.err"
    status=$?
    if [ "$status" -ne 0 ] || grep -qE "AddressSanitizer|runtime error:|LeakSanitizer" "$TMP/cached.err"; then
      fail "$1: $bin exited $status with the cache"; sed 's/^/    stderr: /' "$TMP/cached.err" | head -5 >&2
      continue
    fi
    if python3 - "$TMP/plain.json" "$TMP/cached.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("cache", None); b.pop("cache", None)
sys.exit(0 if a == b else 1)
PY
    then ok; else fail "$1: $bin answers differently with the cache"; fi
  done
}

# other_digits FILE: the same bytes but for every duration's decimals (each digit one up): the same
# size, other answers, and other first bytes (the first line has a duration)
other_digits () {
  python3 - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
bump = lambda m: m.group(1) + bytes(b"0123456789"[(c - 48 + 1) % 10] for c in m.group(2))
sys.stdout.buffer.write(re.sub(rb'("duration_sec": -?\d+\.)(\d+)', bump, data))
PY
}

# cache_field FIELD: a key of rt-check's "cache" object in $TMP/out
cache_field () { python3 -c "import json,sys; print(str(json.load(open(sys.argv[1]))['cache'][sys.argv[2]]).lower())" "$TMP/out" "$1"; }

synth 21 --faults
F=$(ls -S "$E"/step_*/worker_*.jsonl | head -n 1)

# (a) rewritten in place with as many bytes, its mtime put back: only the change time tells
make_cache
touch -r "$F" "$TMP/times"
other_digits "$F" >"$TMP/new"
cat "$TMP/new" >"$F"
touch -r "$TMP/times" "$F"
[ "$(stat -c '%s %y' "$F")" = "$(stat -c %s "$TMP/new") $(stat -c %y "$TMP/times")" ] && ok \
  || fail "the rewritten file does not have its old size and mtime"
answers_match "a same-size rewrite with its mtime put back"

# a file whose change time alone moved (chmod, touch) is read again: slower, never wrong
make_cache
chmod g+w "$F"
expect_exit 0 "$BUILD/rt-check" "$E" --json --cache-dir "$C"
[ "$(cache_field files_parsed)" = 1 ] && ok || fail "a touched file was not read again"

# (b) rewritten in place (same inode) with more bytes, the first ones different: not an append
make_cache
{ other_digits "$F"; head -n 20 "$F"; } >"$TMP/new"
cmp -s -n 4096 "$TMP/new" "$F" && fail "the longer rewrite should differ in its first bytes" || ok
cat "$TMP/new" >"$F"
answers_match "a longer rewrite in place"

# ... while a real append is still read from where the cache stopped
make_cache
head -n 5 "$F" >>"$F"
expect_exit 0 "$BUILD/rt-check" "$E" --json --cache-dir "$C"
[ "$(cache_field files_resumed)" = 1 ] && [ "$(cache_field files_parsed)" = 0 ] && ok \
  || fail "an appended file was not resumed (resumed $(cache_field files_resumed), parsed $(cache_field files_parsed))"

# (c) the experiment removed and generated again in the same place. Inode numbers get reused (ext4
# hands freed ones out again), so a new file can carry the number, and the path, of an old one:
# first as it happens, then with every file given its old number (written over in place, which
# is what such reuse looks like to stat), some of them longer than before
synth 21
make_cache
synth 22
answers_match "an experiment generated again with another seed"
synth 21
make_cache
"$BUILD/rt-synth" "$TMP/exp22" --steps 2 --workers 3 --requests 12 --seed 22 --quiet || fail "rt-synth"
for f in "$E"/step_*/worker_*.jsonl; do cat "$TMP/exp22/${f#"$E"/}" >"$f"; done
answers_match "an experiment generated again in the old files"

# damaged rows in the cache AND a file rewritten in place with as many bytes, fewer lines and its
# mtime put back: no crash (it used to die of SIGTRAP re-reading the rows), the answers of a fresh load
synth 21 --faults
F=$(ls -S "$E"/step_*/worker_*.jsonl | head -n 1)
make_cache
python3 - "$(ls "$SAVED"/*.rtc)" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
ids_at = struct.unpack_from("<Q", data, 88)[0]   # the rows end where the ids begin
for at in range(256 + 8, ids_at, 24):   # a byte of every row, of every file
    data[at] ^= 0xFF
open(path, "wb").write(data)
PY
touch -r "$F" "$TMP/times"
other_digits "$F" | python3 -c '
import sys
lines = sys.stdin.buffer.read().split(b"\n")
for k in (3, 4, 5):                           # three event lines become one bad line each
    lines[k] = b"x" * len(lines[k])
sys.stdout.buffer.write(b"\n".join(lines))' >"$TMP/new"
cat "$TMP/new" >"$F"
touch -r "$TMP/times" "$F"
answers_match "damaged rows and a rewritten file"

# a cache that cannot be written (the file-size limit: EFBIG) is a note, and leaves no temporary
# file; the cache already there stays as it was
synth 21 --faults
make_cache
sum_before=$(sha1sum "$C"/*.rtc | cut -d' ' -f1)
head -n 5 "$F" >>"$F"                        # a new cache is due
(
  trap '' XFSZ
  ulimit -f 8
  "$BUILD/rt-check" "$E" --json --cache-dir "$C" >/dev/null 2>"$TMP/err"
) && ok || fail "rt-check failed when its cache could not be written: $(cat "$TMP/err")"
expect_grep "no cache written" "$TMP/err" "a cache write that failed"
[ -z "$(ls -A "$C" | grep -v '\.rtc$')" ] && ok || fail "left in the cache folder: $(ls -A "$C")"
[ "$(sha1sum "$C"/*.rtc | cut -d' ' -f1)" = "$sum_before" ] && ok || fail "the old cache was changed"
rm -rf "$C"
(
  trap '' XFSZ
  ulimit -f 8
  "$BUILD/rt-check" "$E" --json --cache-dir "$C" >/dev/null 2>"$TMP/err"
) && ok || fail "rt-check failed when its first cache could not be written: $(cat "$TMP/err")"
[ -z "$(ls -A "$C")" ] && ok || fail "left in the cache folder: $(ls -A "$C")"
finish
