#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-install.sh: `cmake --install` into a temporary prefix gives working tools away from the
# source tree: every command of the build's list with --help and --version, the rolltrace front,
# an analysis run from another folder, man pages that man reads without a warning, and the
# library, which the example program builds against with pkg-config alone.
. "$(dirname "$0")/lib.sh"

P="$TMP/prefix"
VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
[ -n "$VERSION" ] && ok || fail "no project version in $BUILD/CMakeCache.txt"
expect_exit 0 cmake --install "$BUILD" --prefix "$P"
INSTALLED="$ALL_ANALYZERS rt-synth"

# ---- every command, from a folder that is neither the source nor the build tree ----
mkdir -p "$TMP/elsewhere" && cd "$TMP/elsewhere" || exit 1
for cmd in $INSTALLED rolltrace; do
  [ -x "$P/bin/$cmd" ] && ok || fail "$cmd is not installed in $P/bin"
  expect_exit 0 "$P/bin/$cmd" --help
  expect_grep "Usage:" "$TMP/out" "installed $cmd --help"
  expect_exit 0 "$P/bin/$cmd" --version
  expect_grep "$VERSION" "$TMP/out" "installed $cmd --version"
done
[ "$(ls "$P/bin" | wc -l)" -eq "$(echo $INSTALLED rolltrace | wc -w)" ] && ok \
  || fail "$P/bin holds other files than the commands: $(ls "$P/bin" | tr '\n' ' ')"
for f in librolltrace.a librolltrace.so "librolltrace.so.${VERSION%.*}" pkgconfig/rolltrace.pc; do
  [ -e "$P/lib/$f" ] && ok || fail "no $f in $P/lib"
done
[ "$(readlink -f "$P/lib/librolltrace.so")" = "$P/lib/librolltrace.so.$VERSION" ] && ok \
  || fail "librolltrace.so does not lead to librolltrace.so.$VERSION"

# one analysis, plots rendered, on a copy of a fixture: the same answer as the build's
cp -r "$SRC/fixtures/hand-v2" "$TMP/elsewhere/exp"
expect_exit 0 "$P/bin/rt-cdf" exp --json
cp "$TMP/out" "$TMP/installed.json"
"$BUILD/rt-cdf" exp --json --no-render --out "$TMP/build-out" >"$TMP/build.json" 2>/dev/null
expect_same_answer "$TMP/build.json" "$TMP/installed.json" "installed rt-cdf"
[ -s rt-out/exp/cdf.png ] && ok || fail "installed rt-cdf drew no rt-out/exp/cdf.png"

# ---- the front: rolltrace NAME is rt-NAME, from its own folder or through PATH ----
expect_exit 0 "$P/bin/rolltrace" cdf exp --json --no-render
expect_same_answer "$TMP/build.json" "$TMP/out" "rolltrace cdf"
expect_exit 0 env PATH="$P/bin:/usr/bin:/bin" rolltrace workers exp --json --no-render
expect_exit 0 "$P/bin/rolltrace"
cp "$TMP/out" "$TMP/list.txt"
expect_exit 0 "$P/bin/rolltrace" help
cmp -s "$TMP/out" "$TMP/list.txt" && ok || fail "'rolltrace help' and 'rolltrace' list differently"
for cmd in $INSTALLED; do
  line=$("$P/bin/$cmd" --summary-line)
  [ -n "$line" ] && ok || fail "$cmd --summary-line says nothing"
  # a first sentence too long for the list is cut mid-clause and ends in " ...": shorten it
  case $line in *" ...") fail "$cmd --summary-line is cut: '$line'" ;; *) ok ;; esac
  grep -qxF -- "$(printf '  %-14s %s' "${cmd#rt-}" "$line")" "$TMP/list.txt" && ok \
    || fail "'rolltrace help' lacks '${cmd#rt-}  $line'"
done
expect_exit 2 "$P/bin/rolltrace" no-such-command
expect_grep "^rolltrace: 'no-such-command' is not a rolltrace command" "$TMP/err" "an unknown command"
expect_exit 2 "$P/bin/rolltrace" ../bin/rt-cdf exp
expect_exit 2 "$P/bin/rolltrace" --no-such-option
# help NAME: the man page when man finds it, else the command's --help
expect_exit 0 env MANPATH="$P/share/man" MANPAGER=cat MANWIDTH=80 "$P/bin/rolltrace" help cdf
expect_grep "EXIT STATUS" "$TMP/out" "rolltrace help cdf, with the pages installed"
expect_exit 0 env MANPATH="$TMP/no-pages" "$P/bin/rolltrace" help cdf
expect_grep "^  rt-cdf \[OPTION" "$TMP/out" "rolltrace help cdf, without a man page"

# ---- man pages: one per command and the front, rolltrace(7); man reads each without a warning ----
for page in $(for c in $INSTALLED rolltrace; do echo "man1/$c.1.gz"; done) man7/rolltrace.7.gz; do
  f="$P/share/man/$page"
  if [ ! -s "$f" ]; then fail "no $page installed"; continue; fi
  warnings=$(MANWIDTH=80 man -l "$f" 2>&1 >/dev/null)
  [ -z "$warnings" ] && ok || fail "man -l $page warns: $(echo "$warnings" | head -3)"
  for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do
    zgrep -q "^\.SH $section" "$f" && ok || fail "$page has no $section section"
  done
done
for cmd in $INSTALLED rolltrace; do
  f="$TMP/$cmd.1"
  zcat "$P/share/man/man1/$cmd.1.gz" >"$f"
  grep -q '^\.SH EXAMPLES' "$f" && ok || fail "$cmd.1 has no EXAMPLES"
  # every option of --help is in the page
  for opt in $("$P/bin/$cmd" --help | grep -o -- '^ \+\(-[a-z], \)\?--[a-z-]*' | grep -o -- '--[a-z-]*'); do
    grep -qF -- "\\fB${opt//-/\\-}\\fR" "$f" && ok || fail "$cmd.1 lacks the option $opt"
  done
  # a command whose --help lists table columns has them, the JSON keys, in its page
  if "$P/bin/$cmd" --help | grep -q '^Tables'; then
    grep -q '^\.SH TABLE COLUMNS AND JSON KEYS' "$f" && ok || fail "$cmd.1 has no section of its tables' columns"
    # each column (the keys of the JSON objects) is a tagged paragraph of its own
    missing=""
    for col in $("$P/bin/$cmd" --help | sed -n '/^Tables/,$p' | sed -n 's/^    \([^ ]*\) .*/\1/p' | sort -u); do
      grep -qxF ".B ${col//-/\\-}" "$f" || missing="$missing $col"
    done
    [ -z "$missing" ] && ok || fail "$cmd.1 does not list the columns$missing"
  fi
  grep -q "^${cmd//-/\\\\-} \\\\- [A-Z]" "$f" && ok || fail "$cmd.1 has no NAME line ($cmd \\- what it does)"
done
for cmd in $INSTALLED; do
  grep -qF "\\fB${cmd//-/\\-}\\fR(1)" <(zcat "$P/share/man/man7/rolltrace.7.gz") && ok || fail "rolltrace(7) does not list $cmd"
done

# ---- the library, with the installed headers and pkg-config only ----
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
expect_exit 0 pkg-config --modversion rolltrace
expect_grep "^$VERSION\$" "$TMP/out" "pkg-config --modversion rolltrace"
SAN=""
is_asan && SAN="-fsanitize=address,undefined"
"$BUILD/examples/p99-straggler" exp >"$TMP/example-build.txt" 2>&1
# shared
if cc $SAN "$SRC/examples/p99-straggler.c" $(pkg-config --cflags --libs rolltrace) -o "$TMP/p99-shared" 2>"$TMP/cc.err"
then ok; else fail "the example does not build against the installed library:"; head -5 "$TMP/cc.err" >&2; fi
expect_exit 0 env LD_LIBRARY_PATH="$P/lib" "$TMP/p99-shared" exp
cmp -s "$TMP/out" "$TMP/example-build.txt" && ok || fail "the example built on librolltrace.so answers differently"
LD_LIBRARY_PATH="$P/lib" ldd "$TMP/p99-shared" 2>/dev/null | grep -q "librolltrace.so.${VERSION%.*} => $P/lib/" && ok \
  || fail "the example does not use $P/lib/librolltrace.so.${VERSION%.*}"
# static: the archive, with what pkg-config --static adds
if cc $SAN "$SRC/examples/p99-straggler.c" $(pkg-config --cflags rolltrace) "$P/lib/librolltrace.a" \
     $(pkg-config --static --libs rolltrace | sed 's/-lrolltrace //') -o "$TMP/p99-static" 2>"$TMP/cc.err"
then ok; else fail "the example does not build against librolltrace.a:"; head -5 "$TMP/cc.err" >&2; fi
expect_exit 0 "$TMP/p99-static" exp
cmp -s "$TMP/out" "$TMP/example-build.txt" && ok || fail "the example built on librolltrace.a answers differently"
# the version header
printf '#include <rolltrace/rt-version.h>\n#include <stdio.h>\nint main (void) { puts (ROLLTRACE_VERSION); return 0; }\n' >"$TMP/v.c"
cc "$TMP/v.c" $(pkg-config --cflags rolltrace) -o "$TMP/v" && [ "$("$TMP/v")" = "$VERSION" ] && ok \
  || fail "rolltrace/rt-version.h does not give $VERSION"

# ---- make install PREFIX=... and DESTDIR go to the same places ----
expect_exit 0 env DESTDIR="$TMP/dest" cmake --install "$BUILD" --prefix /opt/rt
[ -x "$TMP/dest/opt/rt/bin/rolltrace" ] && [ -s "$TMP/dest/opt/rt/share/man/man1/rt-cdf.1.gz" ] && ok \
  || fail "DESTDIR=$TMP/dest --prefix /opt/rt did not install under $TMP/dest/opt/rt"
finish
