#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-no-threads.sh: where no thread can be started (a limit on processes, or on memory for
# their stacks), every command still answers, and the same: a load whose pool got no thread
# once waited for ever, and a writer stream without its thread ended the process.
# Thread stacks are made as large as the stack limit says: a limit of 2 GB on the stack and of
# 1.5 GB on the address space leaves a command the memory it needs but none for a thread.
. "$(dirname "$0")/lib.sh"

# AddressSanitizer reserves terabytes of address space: it cannot run under such a limit
if is_asan; then echo "skipped: $BUILD is built with AddressSanitizer, which needs more address space"; exit 77; fi

# no_threads CMD...: runs CMD with no thread to be had, killed after 60 s
no_threads () { ( ulimit -s 2000000 && ulimit -v 1500000 && exec timeout 60 "$@" ); }

# the premise: no thread can be started under the limit
if no_threads python3 -c 'import threading; threading.Thread(target=int).start()' 2>/dev/null; then
  fail "a thread could be started under the limits: the test tests nothing"
else ok; fi

exp="$SRC/fixtures/hand-v2"
for cmd in rt-check rt-cdf rt-report; do
  args=(--quiet --json)
  [ "$cmd" = rt-check ] || args+=(--no-render --out "$TMP/$cmd")
  "$BUILD/$cmd" "$exp" --no-cache "${args[@]}" >"$TMP/$cmd.want" 2>"$TMP/$cmd.err" || fail "$cmd: failed without limits"
  if no_threads "$BUILD/$cmd" "$exp" --no-cache "${args[@]}" >"$TMP/$cmd.got" 2>"$TMP/$cmd.err2"; then ok
  else fail "$cmd without threads: exit $? ($(head -c 300 "$TMP/$cmd.err2"))"; fi
  cmp -s "$TMP/$cmd.want" "$TMP/$cmd.got" && ok || fail "$cmd without threads: another answer"
done

# several experiments, each loaded on a thread of its own where it can be
"$BUILD/rt-compare" "$exp" "$SRC/fixtures/hand-v1" --no-cache --quiet --json --no-render --out "$TMP/c1" >"$TMP/cmp.want" \
  || fail "rt-compare: failed without limits"
no_threads "$BUILD/rt-compare" "$exp" "$SRC/fixtures/hand-v1" --no-cache --quiet --json --no-render --out "$TMP/c2" \
  >"$TMP/cmp.got" && ok || fail "rt-compare without threads: exit $?"
cmp -s "$TMP/cmp.want" "$TMP/cmp.got" && ok || fail "rt-compare without threads: another answer"

# the writers: a CSV and a trace through a writer stream that gets no thread; a cache written
"$BUILD/rt-export" "$exp" --no-cache --quiet -o "$TMP/want.csv" || fail "rt-export: failed without limits"
no_threads "$BUILD/rt-export" "$exp" --no-cache --quiet -o "$TMP/got.csv" && ok || fail "rt-export without threads: exit $?"
cmp -s "$TMP/want.csv" "$TMP/got.csv" && ok || fail "rt-export without threads: another file"
"$BUILD/rt-trace" "$exp" --no-cache --quiet -o "$TMP/want.json" || fail "rt-trace: failed without limits"
no_threads "$BUILD/rt-trace" "$exp" --no-cache --quiet -o "$TMP/got.json" && ok || fail "rt-trace without threads: exit $?"
cmp -s "$TMP/want.json" "$TMP/got.json" && ok || fail "rt-trace without threads: another file"
no_threads "$BUILD/rt-cdf" "$exp" --cache-dir "$TMP/cache" --quiet --json --no-render --out "$TMP/o3" >"$TMP/cdf.cached1" \
  && ok || fail "rt-cdf writing a cache without threads: exit $?"
no_threads "$BUILD/rt-cdf" "$exp" --cache-dir "$TMP/cache" --quiet --json --no-render --out "$TMP/o3" >"$TMP/cdf.cached2" \
  && ok || fail "rt-cdf from its cache without threads: exit $?"
cmp -s "$TMP/rt-cdf.want" "$TMP/cdf.cached2" && ok || fail "rt-cdf from its cache without threads: another answer"
finish
