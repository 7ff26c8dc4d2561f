#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing (local mode and the tests need it). Idempotent.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "Chromium is missing: install it with 'sudo apt-get install -y chromium'" >&2
  exit 1
fi
echo "==> installing Chromium (apt-get install chromium)…"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "==> Chromium installed: $(chromium --version 2>/dev/null | head -1)"
