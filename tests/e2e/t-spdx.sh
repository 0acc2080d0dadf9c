#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-spdx.sh: every source file of the repository (C, C++, headers, shell, Python, CMake, make,
# JavaScript) names its licence in its first lines, as LICENSE and packaging/copyright say.
# The gnuplot templates are left out: their text goes into every plot script users get.
. "$(dirname "$0")/lib.sh"

cd "$SRC" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "t-spdx: $SRC is not a git checkout: nothing to list" >&2
  exit 77
fi
while IFS= read -r f; do
  case $f in fixtures/*|tests/fuzz/corpus/*|tests/fuzz/regressions/*|gnuplot/*) continue ;; esac
  case $f in
    *.c|*.h|*.cpp|*.sh|*.py|*.cmake|*.mk|*.mjs|*CMakeLists.txt|Makefile|.ci/run) ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  head -3 "$f" | grep -q "SPDX-License-Identifier: Apache-2.0" && ok || fail "$f has no SPDX-License-Identifier line at its top"
done < <(git ls-files)
finish
