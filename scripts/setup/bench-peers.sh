#!/usr/bin/env bash
# Installs the MCP peers `porthole-bench peers` measures against (Playwright MCP,
# chrome-devtools-mcp, agent-browser) from the npm registry into target/bench-peers/, at pinned
# versions, with no browser download (every peer runs on the system Chromium). For the bench
# only: `make test` never runs this. Idempotent: does nothing when the pinned set is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=target/bench-peers
want='{
  "name": "porthole-bench-peers",
  "private": true,
  "description": "MCP peers measured by porthole-bench peers (scripts/setup/bench-peers.sh)",
  "dependencies": {
    "@playwright/mcp": "0.0.83",
    "chrome-devtools-mcp": "1.11.0",
    "agent-browser": "0.41.2"
  }
}'
if [ -f "$dir/package.json" ] && [ "$(cat "$dir/package.json")" = "$want" ] && [ -f "$dir/.installed" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is missing: install Node.js (apt-get install -y nodejs npm) to run porthole-bench peers" >&2
  exit 1
fi
mkdir -p "$dir"
printf '%s\n' "$want" >"$dir/package.json.new"
mv "$dir/package.json.new" "$dir/package.json"
rm -f "$dir/.installed"
echo "==> installing the bench peers (@playwright/mcp, chrome-devtools-mcp, agent-browser) into $dir…"
(
  cd "$dir"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
    npm install --no-audit --no-fund --loglevel=error >install.log 2>&1 \
    || { cat install.log >&2; exit 1; }
)
touch "$dir/.installed"
