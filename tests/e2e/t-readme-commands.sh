#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-readme-commands.sh: the README's table of analyzers is the build's list (rt-commands.tsv,
# written from CMakeLists.txt): the same commands in the same order, and every option a row
# shows is one its command takes (its --help lists it).
. "$(dirname "$0")/lib.sh"

# the rows of the table that follows the header "| command | what it computes | plots |"
awk '/^\| command \| what it computes \| plots \|/ { on = 1; next }
     on && !/^\|/ { exit }
     on && !/^\| ---/ { print }' "$SRC/README.md" >"$TMP/rows"
[ -s "$TMP/rows" ] && ok || fail "README.md has no table of analyzers (| command | what it computes | plots |)"

# the first cell's command name, in order
readme_names=$(sed -E 's/^\| `(rt-[a-z-]+)[ `].*/\1/' "$TMP/rows" | tr '\n' ' ')
[ "${readme_names% }" = "${ALL_ANALYZERS% }" ] && ok \
  || fail "README's table lists [${readme_names% }], the build [${ALL_ANALYZERS% }]: keep them one list"

while IFS= read -r row; do
  cmd=$(sed -E 's/^\| `(rt-[a-z-]+)[ `].*/\1/' <<<"$row")
  usage=$(cut -d'|' -f2 <<<"$row")
  [ -x "$BUILD/$cmd" ] || { fail "README's $cmd is not built"; continue; }
  "$BUILD/$cmd" --help >"$TMP/help" 2>&1
  for opt in $(grep -oE -- '--[a-z][a-z-]*' <<<"$usage" | sort -u); do
    grep -qE -- "(^|[ ,])$opt([=, ]|\$)" "$TMP/help" && ok || fail "README shows $cmd $opt, which its --help does not list"
  done
done <"$TMP/rows"
finish
