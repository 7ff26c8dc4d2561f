#!/usr/bin/env bash
# The CDP door's real clients (DESIGN.md §21, tests/tests/it/cdp/, `porthole-bench cdp`):
# playwright-core, puppeteer-core, chrome-devtools-mcp (an MCP server on Puppeteer; needs
# Node 20.19 or newer) and chrome-remote-interface from npm, at the versions tests/cdp-clients/package-lock.json pins, into
# tests/cdp-clients/node_modules. No browser is downloaded: the clients drive the daemon's
# own Chromium through the door. Idempotent: skipped when the lock's packages are installed.
set -euo pipefail

dir="$(cd "$(dirname "$0")/../../tests/cdp-clients" && pwd)"
stamp="$dir/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ -d "$dir/node_modules/playwright-core" ] && [ -d "$dir/node_modules/puppeteer-core" ] \
    && [ -d "$dir/node_modules/chrome-devtools-mcp" ] && [ -d "$dir/node_modules/chrome-remote-interface" ] \
    && [ "$stamp" -nt "$dir/package-lock.json" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "[cdp-clients] npm is missing: install Node.js 20 or newer (apt-get install nodejs npm)" >&2
    exit 1
fi
echo "[cdp-clients] installing playwright-core, puppeteer-core, chrome-devtools-mcp and chrome-remote-interface into $dir"
cd "$dir"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
    npm ci --no-audit --no-fund --loglevel=error
