#!/usr/bin/env bash
# Installs what the cookie-reading tests (daemon/src/cookies/tests) need: Chromium (writes
# `Cookies` with --password-store=basic and, inside a D-Bus session, gnome-libsecret), Firefox
# ESR (writes cookies.sqlite), gnome-keyring + dbus for the Secret Service (v11), and
# libsecret-tools (secret-tool) for diagnostics. Idempotent: installs only what is missing.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have chromium || need+=(chromium)
have firefox-esr || need+=(firefox-esr)
have gnome-keyring-daemon || need+=(gnome-keyring)
have dbus-run-session || need+=(dbus)
have dbus-launch || need+=(dbus-x11)
have secret-tool || need+=(libsecret-tools)

if [ "${#need[@]}" -eq 0 ]; then
  echo "cookie-browsers: everything present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "cookie-browsers: installing ${need[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
