#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-deb.sh: CPack makes rolltrace_VERSION_ARCH.deb from the build tree as it is (nothing is built
# again): its control fields declare the runtime libraries, gnuplot as a recommendation, and its
# files are the commands, pages, completion, library, headers, copyright and changelog under
# /usr only. Unpacked into a scratch root (dpkg -x), the tools run from there.
. "$(dirname "$0")/lib.sh"

VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
ARCH=$(dpkg --print-architecture)
DEB="$TMP/deb/rolltrace_${VERSION}_${ARCH}.deb"
INSTALLED="$ALL_ANALYZERS rt-synth rolltrace"

expect_exit 0 cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$TMP/deb"
[ -s "$DEB" ] && ok || { fail "no $DEB: $(ls "$TMP/deb")"; finish; exit 1; }

# ---- control fields ----
field () { dpkg-deb -f "$DEB" "$1"; }
[ "$(field Package)" = rolltrace ] && ok || fail "Package: $(field Package)"
[ "$(field Version)" = "$VERSION" ] && ok || fail "Version: $(field Version), not $VERSION"
[ "$(field Architecture)" = "$ARCH" ] && ok || fail "Architecture: $(field Architecture)"
[ -n "$(field Maintainer)" ] && [ -n "$(field Description)" ] && [ -n "$(field Section)" ] && ok \
  || fail "Maintainer, Description or Section missing"
depends=$(field Depends)
# the runtime packages of the libraries the build links, as dpkg knows them on this machine
for lib in libglib-2.0.so.0 libsimdjson.so; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 ~ "^"l { print $NF; exit }')
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
  if [ -z "$pkg" ]; then fail "no package owns $lib ($path)"; continue; fi
  case ", $depends" in *", $pkg "* | *", $pkg,"* | *", $pkg") ok ;; *) fail "Depends lacks $pkg (for $lib): $depends" ;; esac
done
case "$depends" in *libglib2.0-0*) ok ;; *) fail "Depends lacks libglib2.0-0: $depends" ;; esac
case "$depends" in *libsimdjson[0-9]*) ok ;; *) fail "Depends lacks the simdjson runtime: $depends" ;; esac
case "$(field Recommends)" in *gnuplot-nox*) ok ;; *) fail "Recommends lacks gnuplot-nox: $(field Recommends)" ;; esac
expect_exit 0 dpkg-deb -I "$DEB"
expect_grep "shlibs" "$TMP/out" "the control archive has a shlibs file for librolltrace"
expect_grep "postinst" "$TMP/out" "the control archive runs ldconfig after install"

# ---- the file list ----
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' >"$TMP/files"
outside=$(grep -v '^/usr/' "$TMP/files" | grep -vx '/')
[ -z "$outside" ] && ok || fail "files outside /usr: $outside"
for cmd in $INSTALLED; do
  for f in /usr/bin/$cmd /usr/share/man/man1/$cmd.1.gz /usr/share/bash-completion/completions/$cmd; do
    grep -qx "$f" "$TMP/files" && ok || fail "the .deb lacks $f"
  done
done
for f in /usr/share/man/man7/rolltrace.7.gz /usr/lib/librolltrace.a /usr/lib/librolltrace.so \
         /usr/lib/pkgconfig/rolltrace.pc /usr/include/rolltrace/rt-analyses.h /usr/include/rolltrace/rt-version.h \
         /usr/share/doc/rolltrace/copyright /usr/share/doc/rolltrace/changelog.gz; do
  grep -qx "$f" "$TMP/files" && ok || fail "the .deb lacks $f"
done
for h in "$SRC"/include/rolltrace/*.h; do
  grep -qx "/usr/include/rolltrace/${h##*/}" "$TMP/files" && ok || fail "the .deb lacks the header ${h##*/}"
done

# ---- unpacked into a scratch root: the tools run, the changelog names this version ----
expect_exit 0 dpkg -x "$DEB" "$TMP/root"
R="$TMP/root/usr"
zcat "$R/share/doc/rolltrace/changelog.gz" | head -1 | grep -q "^rolltrace ($VERSION)" && ok \
  || fail "the changelog's first entry is not $VERSION: $(zcat "$R/share/doc/rolltrace/changelog.gz" | head -1)"
grep -q "^Files: \*" "$R/share/doc/rolltrace/copyright" && ok || fail "copyright is not in the machine-readable format"
mkdir -p "$TMP/run" && cd "$TMP/run" || exit 1
cp -r "$SRC/fixtures/hand-v1" exp
for cmd in $INSTALLED; do
  expect_exit 0 "$R/bin/$cmd" --help
  expect_exit 0 "$R/bin/$cmd" --version
  expect_grep "$VERSION" "$TMP/out" "$cmd --version from the .deb"
done
"$BUILD/rt-workers" exp --json --no-render --out "$TMP/build-out" >"$TMP/build.json" 2>/dev/null
expect_exit 0 "$R/bin/rolltrace" workers exp --json --no-render
expect_same_answer "$TMP/build.json" "$TMP/out" "rolltrace workers from the .deb"
warnings=$(MANWIDTH=80 man -l "$R/share/man/man1/rt-workers.1.gz" 2>&1 >/dev/null)
[ -z "$warnings" ] && ok || fail "man -l rt-workers.1 of the .deb warns: $warnings"
finish
