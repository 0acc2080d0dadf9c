#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t-fault-full-disk.sh: the cache's disk fills up in the middle of a write (ENOSPC at chosen bytes,
# ROLLTRACE_CACHE_FAULT; and EFBIG from a file size limit, `ulimit -f`, a real refusal of the
# kernel that needs no root): the command still exits 0 with the answers of --no-cache and a note
# that says the cache was not written and why; nothing partial is left, an old cache stays as it
# was, and the next run with room writes a whole cache. (t-fault-full-tmpfs: a real full disk.)
. "$(dirname "$0")/lib.sh"

"$BUILD/rt-synth" "$TMP/exp" --steps 6 --workers 4 --requests 60 --seed 5 --quiet || fail "rt-synth"
last=$(ls -d "$TMP/exp"/step_* | sort -t_ -k2 -n | tail -n 1)
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --no-cache --out "$TMP/o" --no-render
cp "$TMP/out" "$TMP/want.json"
expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$TMP/whole" --out "$TMP/o" --no-render
whole=$(stat -c %s "$TMP/whole"/*.rtc) || fail "no cache written"
C="$TMP/c"

# full LABEL OLD WHY CMD...: runs CMD (an rt-cdf --json on EXP with --cache-dir $C) on a disk that
# fills up, with $C empty (OLD no) or holding a cache of EXP without its last step (OLD yes): exit 0,
# the answers of --no-cache, a note naming WHY; then no partial file in $C, the old cache as it was;
# and the next run, with room, leaves a whole cache
full () {
  local label=$1 old=$2 why=$3; shift 3
  rm -rf "$C" "$TMP/old.rtc"
  if [ "$old" = yes ]; then
    mv "$last" "$TMP/last-step"
    "$BUILD/rt-cdf" "$TMP/exp" --cache-dir "$C" --out "$TMP/o" --no-render --quiet >/dev/null 2>&1
    mv "$TMP/last-step" "$last"
    cp "$C"/*.rtc "$TMP/old.rtc" || fail "$label: no old cache written"
  fi
  expect_safe 0 "$@"
  expect_same_answer "$TMP/want.json" "$TMP/out" "$label"
  expect_grep "note: no cache written: .*$why" "$TMP/err" "$label: the note"
  if [ "$old" = yes ]; then
    [ "$(ls -A "$C")" = "$(basename "$C"/*.rtc)" ] && ok || fail "$label: beside the old cache: $(ls -A "$C")"
    cmp -s "$C"/*.rtc "$TMP/old.rtc" && ok || fail "$label: the old cache changed"
  else
    [ -z "$(ls -A "$C" 2>/dev/null)" ] && ok || fail "$label: left in the cache folder: $(ls -A "$C")"
  fi
  expect_safe 0 "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
  expect_same_answer "$TMP/want.json" "$TMP/out" "$label: the next run, with room"
  expect_whole_cache "$TMP/exp" "$C" "$label: the next run, with room"
}

# ENOSPC from the first byte to the last, the header (written last) included
for old in no yes; do
  for at in 0 1 256 4096 $((whole / 5)) $((whole / 2)) $((whole - 200)) $((whole - 1)); do
    full "ENOSPC after $at of $whole bytes, old cache: $old" "$old" "No space left on device" \
      env ROLLTRACE_CACHE_FAULT="enospc@$at" "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
  done
done

# a file size limit: every write past it refused (EFBIG; SIGXFSZ ignored, as a shell that set
# the limit would). Its --out files are smaller than the limit, its cache larger.
limit_kib=$((whole / 2 / 1024))
for old in no yes; do
  full "a file size limit of $limit_kib KiB, old cache: $old" "$old" "File too large" \
    bash -c 'trap "" XFSZ; ulimit -f "$1"; shift; exec "$@"' bash "$limit_kib" \
    "$BUILD/rt-cdf" "$TMP/exp" --json --cache-dir "$C" --out "$TMP/o" --no-render
done
# the room a draft took goes back to the disk as soon as a write of its rows fails, not at the
# end of the load (which reads on, minutes at 100M lines, while the job that shares the disk
# needs it): stopped right after the failure (stop@failed), the process holds no byte of it
rm -rf "$C"
env ROLLTRACE_CACHE_FAULT="enospc@$((whole / 4)),stop@failed" "$BUILD/rt-cdf" "$TMP/exp" --json \
  --cache-dir "$C" --out "$TMP/o" --no-render >"$TMP/out" 2>"$TMP/err" &
pid=$!
state () { awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null; }
for _ in $(seq 300); do [ "$(state)" = T ] && break; sleep 0.1; done
if [ "$(state)" = T ]; then
  ok
  held=""
  for fd in /proc/"$pid"/fd/*; do
    case $(readlink "$fd") in "$(realpath "$C")"/*) held="$held$(stat -L -c %s "$fd") bytes " ;; esac
  done
  # (the draft, and the file its tables are put aside in when it has one)
  case $held in "0 bytes " | "0 bytes 0 bytes ") ok ;; *) fail "after a failed write, the draft holds ${held:-nothing open}" ;; esac
else
  fail "rt-cdf did not stop after its failed write (state $(state))"
fi
kill -CONT "$pid" 2>/dev/null
wait "$pid"; status=$?
[ "$status" = 0 ] && ok || fail "rt-cdf stopped after its failed write: status $status"
expect_same_answer "$TMP/want.json" "$TMP/out" "rt-cdf stopped after its failed write"
finish
