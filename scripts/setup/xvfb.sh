#!/usr/bin/env bash
# Installs Xvfb and xdotool when missing: the host-mode focus test runs a visible Chromium
# standing in for the user's Chrome on a virtual display and reads which window has focus.
# Idempotent.
set -euo pipefail
need=()
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "xvfb: installing ${need[*]}"
$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
$SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
