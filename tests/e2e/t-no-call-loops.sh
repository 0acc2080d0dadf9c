#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-no-call-loops.sh: no two files of the core library call each other, directly or around a
# loop: a lower layer offers an interface, the upper one drives it (tests/call-graph.py, via nm).
source "$(dirname "$0")/lib.sh" "$@"

GRAPH=("$PYTHON" "$SRC/tests/call-graph.py")

# the checker itself: two files that call each other, and three around a loop, are caught; a
# chain is not
CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
CC=${CC:-cc}
compile () {   # compile DIR NAME 'C TEXT'
  mkdir -p "$1" && printf '%s\n' "$3" >"$1/$2.c" && "$CC" -c "$1/$2.c" -o "$1/$2.c.o"
}
compile "$TMP/pair" a 'void b (void); void a (void) { b (); }'
compile "$TMP/pair" b 'void a (void); void b (void) { a (); }'
compile "$TMP/pair" c 'void a (void); void c (void) { a (); }'
expect_exit 1 "${GRAPH[@]}" "$TMP/pair"
expect_grep "a.c -> b.c: b" "$TMP/err" "the loop of a.c and b.c"
grep -q "c.c ->" "$TMP/err" && fail "c.c only calls into the loop, it is not part of it" || ok
compile "$TMP/ring" a 'void b (void); void a (void) { b (); }'
compile "$TMP/ring" b 'void c (void); void b (void) { c (); }'
compile "$TMP/ring" c 'void a (void); void c (void) { a (); }'
expect_exit 1 "${GRAPH[@]}" "$TMP/ring"
expect_grep "c.c -> a.c: a" "$TMP/err" "the loop of a.c, b.c and c.c"
compile "$TMP/chain" a 'void b (void); void a (void) { b (); }'
compile "$TMP/chain" b 'void c (void); void b (void) { c (); }'
compile "$TMP/chain" c 'void c (void) { }'
expect_exit 0 "${GRAPH[@]}" --edges "$TMP/chain"
expect_grep "b.c -> c.c: c" "$TMP/out" "the edges of a chain"
expect_exit 2 "${GRAPH[@]}" "$TMP/empty-$$"

# the library: every object of the core (rolltrace-objects, which both libraries are made of)
LIB="$BUILD/CMakeFiles/rolltrace-objects.dir"   # the core is compiled once, there, for both libraries
expect_exit 0 "${GRAPH[@]}" --edges "$LIB"
[ -s "$TMP/err" ] && sed "s/^/    /" "$TMP/err" >&2   # every loop, not only the first lines
# the graph was really read: the loader drives the cache and the file parser
expect_grep "src/load.c -> src/cache.c: " "$TMP/out" "the library's call graph"
expect_grep "src/load.c -> src/parse.c: " "$TMP/out" "the library's call graph"
calls=$(grep "^src/cache.c -> src/\(load\|parse\).c" "$TMP/out")
[ -z "$calls" ] && ok || fail "the cache calls the loader: $calls"
finish
