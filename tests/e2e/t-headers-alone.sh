#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-headers-alone.sh: every public header compiles on its own (it includes what it uses), the
# per-analysis headers of include/rolltrace/analyses/ among them, and each analysis in
# src/analyses/ has a header there (or is common.c, which common.h declares).
. "$(dirname "$0")/lib.sh"

CFLAGS=$(pkg-config --cflags glib-2.0)
for h in "$SRC"/include/rolltrace/*.h "$SRC"/include/rolltrace/analyses/*.h; do
  rel=${h#"$SRC"/include/}
  printf '#include "%s"\nint rt_header_alone_check;\n' "$rel" >"$TMP/alone.c"
  # shellcheck disable=SC2086
  if cc -std=c11 -Wall -Werror -c "$TMP/alone.c" -I"$SRC/include" -I"$BUILD/include" $CFLAGS -o "$TMP/alone.o" 2>"$TMP/cc.err"; then
    ok
  else
    fail "$rel does not compile on its own: $(head -3 "$TMP/cc.err")"
  fi
done
for c in "$SRC"/src/analyses/*.c; do
  n=$(basename "$c" .c)
  [ -f "$SRC/include/rolltrace/analyses/$n.h" ] || [ -f "$SRC/include/rolltrace/rt-$n.h" ] && ok \
    || fail "src/analyses/$n.c has no header of its own (include/rolltrace/analyses/$n.h)"
done
finish
