#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets of tests/fuzz with clang (ASan+UBSan) in
# their own build folder and runs each one for a while on its seed corpora.
# Prints executions, coverage and crashes per target; exits 1 if any target
# crashed, leaked, timed out or failed to build.
#   usage: scripts/fuzz.sh [--build DIR] [--seconds N] [--jobs N] [TARGET...]
# Corpora grow in DIR/corpus/<target>/ (kept between runs); crash inputs go to
# DIR/artifacts/. Reproduce one with: DIR/tests/fuzz/<target> <crash-file>.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
seconds=20
jobs=2
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) only+=("$1"); shift ;;
  esac
done

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DGPUPLAN_FUZZ=ON \
    -DGPUPLAN_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
fi
cmake --build "$build" -j "$jobs" --target fuzz_targets >"$build/fuzz-build.log" 2>&1 || {
  tail -30 "$build/fuzz-build.log"; echo "fuzz: build failed"; exit 1; }

targets=$build/tests/fuzz/targets.txt
[ -s "$targets" ] || { echo "fuzz: no targets"; exit 1; }
mkdir -p "$build/artifacts"
status=0
while IFS='|' read -r name min_s flags dirs; do
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " =~ " $name " ]]; then continue; fi
  bin=$build/tests/fuzz/$name
  corpus=$build/corpus/$name
  mkdir -p "$corpus"
  seeddirs=()
  for d in $dirs; do [ -d "$d" ] && seeddirs+=("$d"); done
  log=$build/$name.log
  secs=$seconds
  [ "${min_s:-0}" -gt "$secs" ] && secs=$min_s
  # shellcheck disable=SC2086 # flags are separate words
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $flags \
    -artifact_prefix="$build/artifacts/$name-" "$corpus" "${seeddirs[@]}" >"$log" 2>&1
  rc=$?
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]*' | tail -1 | awk '{print $2}')
  ft=$(grep -E '^#[0-9]+' "$log" | grep -o 'ft: [0-9]*' | tail -1 | awk '{print $2}')
  files=$(find "$corpus" -type f | wc -l)
  echo "fuzz: $name: ${secs}s, ${execs:-?} executions, coverage ${cov:-?} edges / ${ft:-?} features, corpus $files files, exit $rc"
  if [ $rc -ne 0 ]; then
    status=1
    grep -E 'ERROR: |SUMMARY: |Test unit written' "$log" | head -5
  fi
done <"$targets"
exit $status
