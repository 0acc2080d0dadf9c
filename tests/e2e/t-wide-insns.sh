#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-wide-insns.sh: no wide instruction (AVX, AVX-512, BMI...) of the JSON parser's wide kernels
# leaks out of them into code a plain x86-64 would run (tests/wide-insn-check.py): the checker
# catches a function that uses one, and no executable of the build has one. Left out of the
# sanitized pass (label plain-only): what ships is the plain build's code.
. "$(dirname "$0")/lib.sh"

if ! command -v objdump >/dev/null || [ "$(uname -m)" != x86_64 ]; then
  echo "note: not x86-64 or no objdump: the wide-instruction check does not apply"
  finish; exit
fi
# the checker catches a function outside the kernels that uses them
printf '%s\n' 'void add8 (float *a, const float *b) { for (int i = 0; i < 8; i++) a[i] += b[i]; }' \
  'int main (void) { float a[8] = {0}, b[8] = {0}; add8 (a, b); return (int) a[0]; }' >"$TMP/wide.c"
cc -O2 -mavx2 "$TMP/wide.c" -o "$TMP/wide"
expect_exit 1 "$PYTHON" "$SRC/tests/wide-insn-check.py" "$TMP/wide"
expect_grep "add8 uses v" "$TMP/out" "the checker names the function and its instruction"
cc -O2 "$TMP/wide.c" -o "$TMP/narrow"
expect_exit 0 "$PYTHON" "$SRC/tests/wide-insn-check.py" "$TMP/narrow"
# and then every executable of the build, in one run of the checker
binaries=()
for cmd in $ALL_ANALYZERS; do binaries+=("$BUILD/$cmd"); done
[ "${#binaries[@]}" -ge 10 ] && ok || fail "only ${#binaries[@]} executables to check"
expect_exit 0 "$PYTHON" "$SRC/tests/wide-insn-check.py" "${binaries[@]}"
[ -s "$TMP/out" ] && sed 's/^/    /' "$TMP/out" | head -5 >&2
finish
