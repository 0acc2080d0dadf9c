#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-cache-defined.sh: a cache file holds no byte the program never set: the padding of a turn's
# figures once went to the file as whatever memory held (another run's data, and cache files
# that differed from run to run). valgrind's memcheck sees every byte written.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || { echo "FAIL: valgrind is not installed (make deps installs it)"; exit 1; }
# memcheck cannot run a program built with AddressSanitizer: the plain build's run checks this
if is_asan; then echo "skipped: $BUILD is built with AddressSanitizer, which valgrind cannot run"; exit 77; fi

# both logger generations, turns from turn_timings and from turn_end lines, and damaged lines
for fixture in hand-v1 hand-v2 damaged; do
  rm -rf "$TMP/c"
  if valgrind -q --error-exitcode=9 --log-file="$TMP/vg.log" \
       "$BUILD/rt-check" "$SRC/fixtures/$fixture" --quiet --cache-dir "$TMP/c" >/dev/null 2>&1; then ok
  else fail "$fixture: valgrind: $(grep -m1 -A3 'uninitialised\|Invalid' "$TMP/vg.log")"; fi
  [ -n "$(ls "$TMP/c" 2>/dev/null)" ] && ok || fail "$fixture: no cache written"
done
finish
