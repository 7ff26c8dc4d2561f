#!/usr/bin/env bash
# The vault tests' real parts (DESIGN.md §19): keepassxc-cli writes the .kdbx files and computes
# the TOTP code the tests check; pass and gnupg hold the `pass` store; dbus, gnome-keyring and
# secret-tool give `porthole vault unlock`'s test a real Secret Service. Idempotent: installs
# only what is missing.
set -euo pipefail

need=()
command -v keepassxc-cli >/dev/null 2>&1 || need+=(keepassxc)
command -v pass >/dev/null 2>&1 || need+=(pass)
command -v gpg >/dev/null 2>&1 || need+=(gnupg)
command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
command -v secret-tool >/dev/null 2>&1 || need+=(libsecret-tools)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
echo "[vault-tools] installing ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${need[@]}"
