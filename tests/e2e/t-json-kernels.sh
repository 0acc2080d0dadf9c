#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-json-kernels.sh: the JSON parser's wide kernels (haswell: AVX2, icelake: AVX-512) give the
# very tables the plain one gives, on every fixture, the samples and a damaged generated trace.
# (That no wide instruction leaks out of them: t-wide-insns.sh.)
. "$(dirname "$0")/lib.sh"

# kernel_of K: the kernel the commands use with SIMDJSON_FORCE_IMPLEMENTATION=K
kernel_of () {
  SIMDJSON_FORCE_IMPLEMENTATION=$1 "$BUILD/rt-check" --version | sed -n 's/^JSON parser: .*, \([a-z]*\) kernel$/\1/p'
}
[ "$(kernel_of fallback)" = plain ] && ok || fail "SIMDJSON_FORCE_IMPLEMENTATION=fallback gives the $(kernel_of fallback) kernel, not plain"
[ "$(kernel_of no-such-kernel)" = plain ] && ok || fail "an unknown kernel name must give the plain kernel"
# left to choose, a processor with AVX2 gets a wide kernel: the build links them into the library
if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo; then
  [ "$(kernel_of '')" != plain ] && ok || fail "this processor has AVX2, yet the commands parse with the plain kernel"
fi

"$BUILD/rt-synth" "$TMP/synth" --steps 3 --workers 4 --requests 40 --seed 11 --faults --quiet
exps=("$TMP/synth")
while IFS= read -r exp; do exps+=("$exp"); done < <(
  find "$SRC/fixtures" -type d -name 'step_*' -printf '%h\n' | sort -u)
[ "${#exps[@]}" -ge 10 ] && ok || fail "only ${#exps[@]} experiments found to compare the kernels on"

# tables KERNEL EXP DIR: every table of EXP read with KERNEL, and rt-check's account of its lines
# (every table in one run: rt-export --partition writes them all, a folder of step=N parts each,
# compressed; five runs of rt-export were two thirds of the test's time, under the sanitizers)
tables () {
  local k=$1 exp=$2 dir=$3 t
  mkdir -p "$dir"
  SIMDJSON_FORCE_IMPLEMENTATION=$k "$BUILD/rt-check" "$exp" --no-cache --json --verbose >"$dir/check.json" 2>/dev/null
  SIMDJSON_FORCE_IMPLEMENTATION=$k "$BUILD/rt-export" "$exp" --no-cache --quiet --partition step -o "$dir/parts" 2>/dev/null
  for t in requests turns events steps workers; do
    find "$dir/parts/$t" -name part.csv.gz 2>/dev/null | sort | xargs -r zcat >"$dir/$t.csv"
  done
  rm -rf "$dir/parts"
}

compared=0
for k in haswell icelake; do
  if [ "$(kernel_of "$k")" != "$k" ]; then
    echo "note: the $k kernel is not in this build or not run by this processor: not compared"
    continue
  fi
  for exp in "${exps[@]}"; do
    out="$TMP/k/$(echo "$exp" | md5sum | cut -c1-8)"
    [ -d "$out/plain" ] || tables fallback "$exp" "$out/plain"
    tables "$k" "$exp" "$out/$k"
    [ -s "$out/plain/events.csv" ] || [ -s "$out/plain/check.json" ] || fail "no tables read from $exp"
    if diff -r "$out/plain" "$out/$k" >"$TMP/diff"; then ok; else
      fail "the $k kernel's tables of $exp differ from the plain one's:"; head -5 "$TMP/diff" >&2; fi
    compared=$((compared + 1))
  done
done
echo "compared the kernels' tables on $compared experiment readings"
[ "$(wc -l <"$TMP/k/$(echo "$TMP/synth" | md5sum | cut -c1-8)/plain/events.csv")" -gt 1000 ] && ok \
  || fail "the plain kernel read no events of the generated trace"

# simdjson's library honours the variable too: a name it does not know, or an empty one, must
# not make it fail every line (nor the cache keep that)
for k in no-such-kernel ""; do
  tables "$k" "$SRC/fixtures/hand-v2" "$TMP/named-$k"
  tables fallback "$SRC/fixtures/hand-v2" "$TMP/named-plain"
  diff -r "$TMP/named-plain" "$TMP/named-$k" >/dev/null && ok || fail "SIMDJSON_FORCE_IMPLEMENTATION='$k' changes the tables"
done

finish
