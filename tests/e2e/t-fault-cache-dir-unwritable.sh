#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fault-cache-dir-unwritable.sh: a cache folder that cannot be written, read-only or a file in
# its place: the command exits 0 with the answers of --no-cache and a note that says the cache was
# not written and why; a cache already in a read-only folder is still used, and left as it was.
. "$(dirname "$0")/lib.sh"

"$BUILD/rt-synth" "$TMP/exp" --steps 4 --workers 3 --requests 30 --seed 9 --quiet || fail "rt-synth"
last=$(ls -d "$TMP/exp"/step_* | sort -t_ -k2 -n | tail -n 1)
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --no-cache --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/want.json"

# unwritable LABEL WHY [ENV=VALUE...] -- ARGS...: rt-cdf on EXP with ARGS exits 0, answers as
# --no-cache does, and notes that no cache was written, and WHY
unwritable () {
  local label=$1 why=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  expect_safe 0 env "${envs[@]}" "$BUILD/rt-cdf" "$TMP/exp" --json --out "$TMP/o" --no-render "$@"
  expect_same_answer "$TMP/want.json" "$TMP/out" "$label"
  expect_grep "note: no cache written: .*$why" "$TMP/err" "$label: the note"
}

# --- a file where the cache folder should be ----------------------------------------------
printf 'not a folder\n' >"$TMP/file"
unwritable "--cache-dir naming a file" "$TMP/file is not a folder" -- --cache-dir "$TMP/file"
unwritable "--cache-dir under a file" "Not a directory" -- --cache-dir "$TMP/file/rolltrace"
mkdir -p "$TMP/xdg" && printf 'x' >"$TMP/xdg/rolltrace"
unwritable "a file at \$XDG_CACHE_HOME/rolltrace" "$TMP/xdg/rolltrace is not a folder" \
  XDG_CACHE_HOME="$TMP/xdg" --
unwritable "\$XDG_CACHE_HOME a file" "Not a directory" XDG_CACHE_HOME="$TMP/file" --
[ "$(cat "$TMP/file")" = "not a folder" ] && [ "$(cat "$TMP/xdg/rolltrace")" = x ] && ok \
  || fail "the file in the cache folder's place was changed"

# --- a read-only folder ----------------------------------------------------------------------
# Root writes into a folder whatever its mode: as root a read-only tmpfs, else chmod 555.
RO="$TMP/ro"
mkdir -p "$RO"
# make_read_only: the folder $RO, with what it holds, can no longer be written ("" when it cannot)
make_read_only () {
  if [ "$(id -u)" != 0 ]; then chmod 555 "$RO" && echo "Permission denied"
  elif mount -o remount,ro "$RO" 2>/dev/null; then echo "Read-only file system"; fi
}
if [ "$(id -u)" = 0 ]; then
  if mount -t tmpfs -o size=16m tmpfs "$RO" 2>"$TMP/mount.err"; then
    trap 'umount "$RO" 2>/dev/null; rm -rf "$TMP"' EXIT
  else
    RO=""
    echo "note: the read-only part is not run: as root it needs a tmpfs, which cannot be mounted here: $(head -c 200 "$TMP/mount.err")"
  fi
else
  trap 'chmod -R u+w "$RO" 2>/dev/null; rm -rf "$TMP"' EXIT
fi
if [ -n "$RO" ]; then
  # a cache of the trace without its last step, written while the folder could be
  mv "$last" "$TMP/last-step"
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$RO" --out "$TMP/o" --no-render
  cp "$TMP/out" "$TMP/want-short.json"
  cp "$RO"/*.rtc "$TMP/old.rtc" || fail "no cache written before the folder was made read-only"
  why=$(make_read_only)
  if [ -z "$why" ]; then
    fail "the folder could not be made read-only"
  else
    # as cached: used, nothing to write, no note
    expect_safe 0 "$BUILD/rt-check" "$TMP/exp" --json --cache-dir "$RO"
    "$PYTHON" -c 'import json, sys; c = json.load(open(sys.argv[1]))["cache"]; sys.exit(0 if c["used"] and c["files_parsed"] == 0 else 1)' \
      "$TMP/out" && ok || fail "the cache in the read-only folder is not used: $(head -c 300 "$TMP/out")"
    expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$RO" --out "$TMP/o" --no-render
    expect_same_answer "$TMP/want-short.json" "$TMP/out" "rt-cdf from a cache in a read-only folder"
    grep -q "note: no cache written" "$TMP/err" && fail "a note with nothing to write: $(cat "$TMP/err")" || ok
    # the trace grew: read on from the old cache, which cannot be replaced
    mv "$TMP/last-step" "$last"
    for run in 1 2; do
      unwritable "run $run of a grown trace, its cache folder read-only" "$why" -- --cache-dir "$RO"
    done
    [ "$(ls -A "$RO" | wc -l)" = 1 ] && cmp -s "$RO"/*.rtc "$TMP/old.rtc" && ok \
      || fail "the read-only folder changed: $(ls -A "$RO")"
    # a cache folder to be made inside it
    unwritable "a cache folder to be made in a read-only one" "$why" -- --cache-dir "$RO/none"
  fi
  [ -d "$TMP/last-step" ] && mv "$TMP/last-step" "$last"
fi
finish
