#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fault-full-tmpfs.sh: a real full disk under the cache folder, a small tmpfs: the command exits
# 0 with the answers of --no-cache and a note that the cache was not written (no space left), and
# gives all the room back; an old cache that fits stays, and answers. Skipped (77) where no tmpfs
# can be mounted (not root, no permission); t-fault-full-disk tests the same path without root.
. "$(dirname "$0")/lib.sh"

SMALL="$TMP/small"
mkdir -p "$SMALL"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: mounting a small tmpfs as the cache folder needs root (this is $(id -un))"
  exit 77
elif ! mount -t tmpfs -o size=64k tmpfs "$SMALL" 2>"$TMP/mount.err"; then
  echo "SKIP: cannot mount a small tmpfs as the cache folder: $(head -c 200 "$TMP/mount.err")"
  exit 77
fi
trap 'umount "$SMALL" 2>/dev/null; rm -rf "$TMP"' EXIT

"$BUILD/rt-synth" "$TMP/exp" --steps 6 --workers 4 --requests 60 --seed 6 --quiet || fail "rt-synth"
last=$(ls -d "$TMP/exp"/step_* | sort -t_ -k2 -n | tail -n 1)
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --no-cache --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/want.json"

# used_kib DIR: the tmpfs's blocks in use
used_kib () { df -k --output=used "$1" | tail -n 1 | tr -d ' '; }

# 64 KiB: not room for the first rows
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$SMALL" --out "$TMP/o" --no-render
expect_same_answer "$TMP/want.json" "$TMP/out" "rt-cdf with its cache on a full tmpfs"
expect_grep "note: no cache written: .*No space left on device" "$TMP/err" "the note on a full tmpfs"
[ -z "$(ls -A "$SMALL")" ] && ok || fail "left on the full tmpfs: $(ls -A "$SMALL")"
[ "$(used_kib "$SMALL")" = 0 ] && ok || fail "the full tmpfs keeps $(used_kib "$SMALL") KiB in use"

# room for a cache of the trace without its last step, not for it and the new one beside it
umount "$SMALL"
mv "$last" "$TMP/last-step"
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --cache-dir "$TMP/sized" --out "$TMP/o" --no-render --quiet
old_kib=$(( $(stat -c %s "$TMP/sized"/*.rtc) / 1024 ))
mount -t tmpfs -o size=$((old_kib + 64))k tmpfs "$SMALL" || fail "mount"
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --cache-dir "$SMALL" --out "$TMP/o" --no-render --quiet
cp "$SMALL"/*.rtc "$TMP/old.rtc" || fail "no old cache on the tmpfs"
mv "$TMP/last-step" "$last"
for run in 1 2; do
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$SMALL" --out "$TMP/o" --no-render
  expect_same_answer "$TMP/want.json" "$TMP/out" "run $run of rt-cdf, the new cache not fitting beside the old"
  expect_grep "note: no cache written: .*No space left on device" "$TMP/err" "run $run: the note"
  [ "$(ls -A "$SMALL" | wc -l)" = 1 ] && ok || fail "run $run: beside the old cache: $(ls -A "$SMALL")"
  cmp -s "$SMALL"/*.rtc "$TMP/old.rtc" && ok || fail "run $run: the old cache changed"
done
finish
