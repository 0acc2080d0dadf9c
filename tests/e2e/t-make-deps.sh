#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-make-deps.sh: `make demo` installs what the build and the plots need and no test-only
# package (a browser, a debugger, a fuzzing compiler); `make test` installs everything. Read
# from what make would run (make -n), so nothing is installed here.
. "$(dirname "$0")/lib.sh"

# packages TARGET: the packages of the install lines make would run for TARGET
packages () {
  (cd "$SRC" && make -n --no-print-directory "$1" BUILD="$TMP/b" ASAN="$TMP/a" DEMO_DIR="$TMP/demo" 2>/dev/null) \
    | sed -n 's/.*for p in \(.*\); do.*/\1/p' | tr ' ' '\n' | sed '/^$/d' | sort -u
}
packages demo >"$TMP/demo"
packages test >"$TMP/test"
[ -s "$TMP/demo" ] && [ -s "$TMP/test" ] && ok || fail "make -n demo / test shows no package list"
for p in build-essential cmake pkg-config libglib2.0-dev libsimdjson-dev libgsl-dev gnuplot-nox python3; do
  grep -qx -- "$p" "$TMP/demo" && ok || fail "make demo does not install $p, which the build or the plots need"
done
for p in chromium valgrind clang libclang-rt-14-dev python3-scipy bash-completion man-db dpkg-dev; do
  grep -qx -- "$p" "$TMP/demo" && fail "make demo installs $p, which only the tests need" || ok
  grep -qx -- "$p" "$TMP/test" && ok || fail "make test does not install $p"
done
# the tests build too: everything the demo installs, make test installs
missing=$(comm -23 "$TMP/demo" "$TMP/test" | tr '\n' ' ')
[ -z "$missing" ] && ok || fail "make test does not install what make demo does: $missing"
finish
