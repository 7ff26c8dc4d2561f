#!/usr/bin/env bash
# Checks for a Rust toolchain with rustfmt and clippy. Idempotent.
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is missing: install Rust from https://rustup.rs (rustup default stable)" >&2
  exit 1
fi
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    rustup component add "$component" >/dev/null
  fi
done
