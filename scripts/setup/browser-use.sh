#!/usr/bin/env bash
# Makes the Python venv with a pinned browser-use (tests/cdp-clients/browser-use-requirements.txt,
# every package pinned) that the CDP door's test (tests/tests/it/cdp/door_tools.rs) drives
# through tests/cdp-clients/browser-use-drive.py: its BrowserSession on the door's URL, no LLM.
# Idempotent: does nothing when the venv already holds the pinned set. The venv lives in target/
# (PORTHOLE_BROWSER_USE_VENV overrides).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PINS="$ROOT/tests/cdp-clients/browser-use-requirements.txt"
VENV="${PORTHOLE_BROWSER_USE_VENV:-$ROOT/target/browser-use-venv}"
WANT="$(sha256sum "$PINS" | cut -d' ' -f1)"

if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.pinned" 2>/dev/null)" = "$WANT" ]; then
  echo "browser-use: the pinned set is present in $VENV"
  exit 0
fi

PY="$(command -v python3 || true)"
if [ -z "$PY" ] || ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  echo "browser-use: installing python3-venv"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends python3 python3-venv
  PY="$(command -v python3)"
fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "browser-use: needs Python 3.11 or newer, $PY is $("$PY" --version)" >&2
  exit 1
fi

echo "browser-use: making $VENV from $PINS"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$PINS"
echo "$WANT" > "$VENV/.pinned"
"$VENV/bin/python" -c 'import browser_use; print("browser-use: ready")'
