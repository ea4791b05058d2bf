#!/usr/bin/env bash
# deps.sh: make sure the Debian 12 packages gpuplan builds and tests with are installed.
# As root it installs what is missing with apt-get; otherwise it prints the exact
# apt-get line to run and fails. Usage: scripts/deps.sh [build|test]
set -euo pipefail

want_build="build-essential cmake pkg-config libcivetweb-dev libsqlite3-dev libcjson-dev
libmbedtls-dev libcurl4-openssl-dev check sqlite3"
# Tests also need: clang + its runtime (libFuzzer, sanitizers), wrk (benchmarks and load),
# chromium and node/npm (browser tests with playwright-core), valgrind.
want_test="$want_build clang libclang-rt-14-dev chromium nodejs npm valgrind curl wrk"

case "${1:-build}" in
  build) want=$want_build ;;
  test)  want=$want_test ;;
  *) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
# node and npm may come from outside Debian's packages (e.g. a NodeSource install):
# accept working binaries instead of the Debian packages.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  missing=$(echo "$missing" | tr ' ' '\n' | grep -vxE 'nodejs|npm' | tr '\n' ' ' || true)
fi
missing=$(echo $missing)
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
  echo "deps: installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "deps: missing Debian packages; run as root:" >&2
  echo "  apt-get install -y $missing" >&2
  exit 1
fi
