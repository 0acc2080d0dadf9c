#!/usr/bin/env bash
# write-plots.sh: the first half of `make plots`: every analyzer the build lists with plot runs
# (BUILD/rt-commands.tsv, written from CMakeLists.txt) writes its data and gnuplot scripts into OUT.
#   gnuplot/write-plots.sh BUILD EXP OUT FORMAT STEP [TRAIN]
# In a run's arguments EXP, STEP and TRAIN stand for the values given; a [bracketed] part is
# kept only when TRAIN is given, and a run that needs TRAIN outside brackets is skipped without it.
set -euo pipefail
build=$1 exp=$2 out=$3 format=$4 step=$5 train=${6:-}
list="$build/rt-commands.tsv"
[ -r "$list" ] || { echo "make plots: $list is missing (it is written by the build: make)" >&2; exit 1; }

# run_args RUN: sets `args` to the arguments of RUN, or returns 1 when RUN needs TRAIN and has none
run_args () {
  local words word bracket=0 closes
  read -r -a words <<<"$1"
  args=()
  for word in "${words[@]}"; do
    case $word in '['*) bracket=1; word=${word#[} ;; esac
    closes=0
    case $word in *']') closes=1; word=${word%]} ;; esac
    if [ "$bracket" = 0 ] || [ -n "$train" ]; then
      case $word in
        EXP) args+=("$exp") ;;
        STEP) args+=("$step") ;;
        TRAIN) [ -n "$train" ] || return 1; args+=("$train") ;;
        *) args+=("$word") ;;
      esac
    fi
    [ "$closes" = 0 ] || bracket=0
  done
}

while IFS=$'\t' read -r name takes plots no_data needs; do
  case $name in '#'* | name | '') continue ;; esac
  [ "$plots" != - ] || continue
  IFS=';' read -r -a runs <<<"$plots"
  for run in "${runs[@]}"; do
    run_args "$run" || continue
    status=0
    "$build/$name" "${args[@]}" --out "$out" --format "$format" --no-render --quiet || status=$?
    if [ "$status" = 1 ] && [ "$no_data" = skip ]; then
      echo "make plots: $name found nothing to draw in ${args[0]} ($takes): its plots are skipped"
    elif [ "$status" != 0 ]; then
      exit "$status"
    fi
  done
done <"$list"
