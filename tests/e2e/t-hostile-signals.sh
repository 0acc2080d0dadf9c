#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-hostile-signals.sh: hostile input, class 11 (c) of issue 10: an analyzer interrupted by
# SIGTERM or SIGINT, while loading, writing its cache or its tables, or rendering, exits by the
# signal and leaves no temporary and no partial file in --out or in its cache folder.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "FAIL: gnuplot is not installed (make deps installs it)"; exit 1; }

# A larger experiment, so that there is time to land in each phase; under ASan, whose load of
# this one is about 15 times slower, a 16th of it.
if is_asan; then size=(--steps 10 --workers 4 --requests 50); else size=(--steps 20 --workers 8 --requests 200); fi
"$BUILD/rt-synth" "$TMP/big" "${size[@]}" --seed 1 --quiet || fail "rt-synth"
state=$(tree_state "$TMP/big")
# the complete run: what each file must be if it is there, and how long a run takes
start=$(date +%s.%N)
expect_safe 0 "$BUILD/rt-cdf" "$TMP/big" --out "$TMP/ref" --cache-dir "$TMP/ref-cache" --quiet
whole=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')

# interrupt SIG WHEN: runs rt-cdf with a fresh --out and cache folder and sends SIG to its
# process group (as a terminal's Ctrl-C does) at WHEN: a fraction of a whole run's time, or
# "cache" / "out" / "render": as soon as the cache folder is made, the --out folder has something
# in it, or the plot's script does. Then checks the exit and what is left.
# has_entries DIR: DIR exists and holds something (a glob, not a process per poll)
has_entries () { local e; e=$(shopt -s nullglob dotglob; echo "$1"/*); [ -n "$e" ]; }

# run_and_signal SIG WHEN O C: one run of rt-cdf, signalled at WHEN; sets status, and
# waited=1 when the run had ended before the signal could be sent
run_and_signal () {
  local sig=$1 when=$2 o=$3 c=$4 pid
  waited=0
  rm -rf "$o" "$c"
  set -m                                     # its own process group, SIGINT not ignored
  "$BUILD/rt-cdf" "$TMP/big" --out "$o" --cache-dir "$c" --quiet >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  set +m
  case $when in
    # (the cache being written has no name until it is complete: its folder is made first)
    cache) until [ -d "$c" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.002; done ;;
    out) until has_entries "$o" || ! kill -0 "$pid" 2>/dev/null; do sleep 0.002; done ;;
    render) until [ -e "$o/cdf.gp" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.002; done; sleep 0.02 ;;
    *) sleep "$(awk -v a="$whole" -v f="$when" 'BEGIN { printf "%.3f", a * f }')" ;;
  esac
  kill -0 "$pid" 2>/dev/null || waited=1      # done before the signal could be sent
  kill -s "$sig" -- "-$pid" 2>/dev/null
  # a run that ignores the signal is killed 20 s later (polled: a helper subshell killed at
  # its birth would run this script's EXIT trap)
  local polls=0
  while kill -0 "$pid" 2>/dev/null && [ $((polls += 1)) -le 400 ]; do sleep 0.05; done
  kill -s KILL -- "-$pid" 2>/dev/null
  wait "$pid"
  status=$?
  sleep 0.2                                  # a child left behind would still be writing
}

# interrupt SIG WHEN: runs rt-cdf with a fresh --out and cache folder and sends SIG to its
# process group (as a terminal's Ctrl-C does) at WHEN: a fraction of a whole run's time, or
# "cache" / "out" / "render": as soon as the cache folder is made, the --out folder has something
# in it, or the plot's script does. Then checks the exit and what is left. On a busy machine a
# run can end before the signal goes out: it is tried again, three times at most.
interrupt () {
  local sig=$1 when=$2 o="$TMP/o-$1-$2" c="$TMP/c-$1-$2" status waited attempt
  for attempt in 1 2 3; do
    run_and_signal "$sig" "$when" "$o" "$c"
    [ "$waited" = 0 ] && break
  done
  local label="rt-cdf, SIG$sig at $when (a whole run: ${whole}s)"
  if [ "$waited" = 1 ]; then
    fail "$label: the run ended (status $status) before the signal; the test needs a larger experiment"
  else
    case $status in
      130 | 143) ok ;;
      137) fail "$label: it ignored the signal and was killed 20 s later" ;;
      *) fail "$label: status $status, not an exit by the signal" ;;
    esac
  fi
  grep -q -a -e AddressSanitizer -e 'runtime error:' -e LeakSanitizer "$TMP/err" \
    && fail "$label: sanitizer report: $(head -c 300 "$TMP/err")" || ok
  expect_whole "$o" "$TMP/none" "$TMP/ref" "$label: --out"
  expect_no_temps "$c" "$label: the cache folder"
  expect_only_rtc "$c" "$label: the cache folder"
}
for when in 0.05 0.25 cache out render; do interrupt TERM "$when"; done
for when in 0.15 cache render; do interrupt INT "$when"; done

# a cache left by an interrupted run answers as a fresh load
expect_safe 0 "$BUILD/rt-cdf" "$TMP/big" --json --no-cache --out "$TMP/o-json" --no-render
cp "$TMP/out" "$TMP/want.json"
for c in "$TMP"/c-*; do
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/big" --json --cache-dir "$c" --out "$TMP/o-json" --no-render
  expect_same_answer "$TMP/want.json" "$TMP/out" "rt-cdf from the cache folder of an interrupted run (${c##*/})"
done
expect_tree_unchanged <(echo "$state") "$TMP/big" "the experiment after interrupted runs"
finish
