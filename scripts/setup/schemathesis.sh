#!/usr/bin/env bash
# Makes the Python venv with a pinned schemathesis that the API fuzz test (tests/tests/it/fuzz.rs)
# runs against a live daemon's OpenAPI document. Idempotent: does nothing when the venv already
# holds the pinned version. The venv lives in target/ (PORTHOLE_FUZZ_VENV overrides).
set -euo pipefail

VERSION="4.32.5"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${PORTHOLE_FUZZ_VENV:-$ROOT/target/schemathesis-venv}"

if [ -x "$VENV/bin/schemathesis" ] && [ "$(cat "$VENV/.pinned" 2>/dev/null)" = "$VERSION" ]; then
  echo "schemathesis: $VERSION present in $VENV"
  exit 0
fi

PY="$(command -v python3 || true)"
if [ -z "$PY" ] || ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  echo "schemathesis: installing python3-venv"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends python3 python3-venv
  PY="$(command -v python3)"
fi

echo "schemathesis: making $VENV with schemathesis==$VERSION"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$VERSION"
echo "$VERSION" > "$VENV/.pinned"
"$VENV/bin/schemathesis" --version
