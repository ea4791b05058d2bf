#!/usr/bin/env bash
# valgrind-e2e.sh: runs the end-to-end tests with every server they start
# running under valgrind memcheck, and summarises the errors and leaks found.
# The tests find the binary through GPUPLAN_BIN, so a wrapper that execs
# valgrind stands in for it; a memcheck error makes the server exit 99, which
# fails the test that stops it.
#   usage: scripts/valgrind-e2e.sh [BUILD_DIR] [CTEST_REGEX]   (default: build, e2e tests)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
regex=${2:-e2e}
command -v valgrind >/dev/null || { echo "valgrind-e2e: valgrind is not installed"; exit 1; }
logs=$(mktemp -d /tmp/gpuplan-vg-XXXXXX)
wrapper=$logs/gpuplan
cat >"$wrapper" <<WRAP
#!/bin/sh
# Only the server runs under valgrind; CLI runs (help, backup) are short and many.
if [ "\$1" = serve ]; then
  # valgrind keeps the open-files limit it starts with (the client cannot
  # raise it), so the soft limit goes to the hard one here, as serve does
  ulimit -Sn "\$(ulimit -Hn)" 2>/dev/null || true
  exec valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \\
    --errors-for-leak-kinds=definite --track-origins=yes --num-callers=30 \\
    --log-file=$logs/vg-%p.log "$build/gpuplan" "\$@"
fi
exec "$build/gpuplan" "\$@"
WRAP
chmod +x "$wrapper"
echo "valgrind-e2e: servers under memcheck; logs in $logs"
(cd "$build" && GPUPLAN_BIN=$wrapper LOAD_SECONDS=${LOAD_SECONDS:-10} ctest -R "$regex" --output-on-failure -j 1 --timeout 900)
rc=$?
runs=0; killed=0; bad=(); definite=0
for f in "$logs"/vg-*.log; do
  [ -f "$f" ] || continue
  runs=$((runs + 1))
  # A server killed with SIGKILL (the crash test) writes no summary.
  if ! grep -q 'ERROR SUMMARY' "$f"; then killed=$((killed + 1)); continue; fi
  grep -q 'ERROR SUMMARY: 0 errors' "$f" || bad+=("$f")
  d=$(grep -h 'definitely lost:' "$f" | awk '{gsub(",","",$4); print $4}')
  definite=$((definite + ${d:-0}))
done
echo "valgrind-e2e: $runs server runs under memcheck ($killed killed by the tests), ${#bad[@]} with errors," \
  "$definite bytes definitely lost in all; ctest exit $rc"
for f in "${bad[@]}"; do
  echo "== $f"
  grep -A14 -m3 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)' "$f"
done
[ ${#bad[@]} -eq 0 ] || exit 1
exit $rc
