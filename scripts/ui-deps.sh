#!/usr/bin/env bash
# ui-deps.sh: installs the node packages the browser tests use (playwright-core,
# driving Debian's /usr/bin/chromium), from the lock file, once.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/tests/e2e/browser"
[ -f "$dir/package.json" ] || exit 0
if [ ! -d "$dir/node_modules/playwright-core" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.stamp" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.stamp)
fi
