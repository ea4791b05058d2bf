#!/usr/bin/env bash
# bench.sh: runs every benchmark and prints its figures, headed by the machine they ran on.
set -uo pipefail
build=${1:-build}
echo "== machine: $(uname -srm); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(free -g | awk '/Mem:/{print $2" GiB"}')"
echo "== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
for b in "$build"/tests/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || echo "(benchmark $(basename "$b") exited $?)"
done
for s in "$(dirname "$0")"/bench-*.sh; do
  [ -x "$s" ] || continue
  echo "== $(basename "$s")"
  "$s" "$build" || echo "($(basename "$s") exited $?)"
done
