#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-start-libraries.sh: an analyzer loads only the shared libraries it uses. Every one the dynamic
# linker maps is relocated in every run, even a run that answers from the cache in a few
# milliseconds: GIO (and the seven libraries it brings) cost about 1 ms of each. Only rt-export
# and rt-trace, whose outputs stream through GIO (gzip-able), may load it.
source "$(dirname "$0")/lib.sh" "$@"

for a in $ALL_ANALYZERS; do
  needed=$(readelf -d "$BUILD/$a" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [ -n "$needed" ] || { fail "$a: readelf lists no library it needs"; continue; }
  case $a in
    rt-export|rt-trace) expect_grep "libgio" <(echo "$needed") "$a streams through GIO" ;;
    *) if echo "$needed" | grep -q "libgio\|libgobject"; then
         fail "$a loads GIO, which only rt-export and rt-trace use: $(echo $needed)"
       else ok; fi ;;
  esac
done

finish
