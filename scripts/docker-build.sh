#!/usr/bin/env bash
# Build the sidecar image (default porthole-chrome:latest) from chrome.Dockerfile: the operator's
# `make docker-build`. The daemon builds the same image the same way through the Docker API.
#
# The build context is exactly what the daemon sends: chrome.Dockerfile and sidecar/{Cargo.toml,src}.
# Base images: debian:bookworm-slim / rust:1-slim-bookworm from a registry when one answers
# (built with --pull), else the local porthole-base:bookworm / porthole-builder:bookworm made by
# scripts/setup/base-images.sh (with a warning). Always --no-cache, so Chromium is current.
#
# Env: PORTHOLE_CHROME_IMAGE (tag), PORTHOLE_BASE_IMAGE + PORTHOLE_BUILDER_IMAGE (skip the
# registry probe and use these), PORTHOLE_PULL_TIMEOUT (seconds for the probe, default 20).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
image="${PORTHOLE_CHROME_IMAGE:-porthole-chrome:latest}"
pull_timeout="${PORTHOLE_PULL_TIMEOUT:-20}"

log() { echo "[docker-build] $*" >&2; }

if ! docker info >/dev/null 2>&1; then
  log "the Docker engine does not answer; run scripts/setup/docker.sh first"
  exit 1
fi

# The version label: daemon/Cargo.toml's own version, else the workspace's.
version="$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$repo/daemon/Cargo.toml" | head -n 1)"
if [[ -z "$version" ]]; then
  version="$(awk '/^\[workspace\.package\]/{s=1; next} /^\[/{s=0}
    s && /^version *=/ {gsub(/.*= *"|".*/, ""); print; exit}' "$repo/Cargo.toml")"
fi
if [[ -z "$version" ]]; then
  log "cannot read the version from daemon/Cargo.toml or Cargo.toml"
  exit 1
fi

pull=()
if [[ -n "${PORTHOLE_BASE_IMAGE:-}" || -n "${PORTHOLE_BUILDER_IMAGE:-}" ]]; then
  base="${PORTHOLE_BASE_IMAGE:-debian:bookworm-slim}"
  builder="${PORTHOLE_BUILDER_IMAGE:-rust:1-slim-bookworm}"
elif timeout "$pull_timeout" docker pull -q debian:bookworm-slim >/dev/null 2>&1; then
  base="debian:bookworm-slim"
  builder="rust:1-slim-bookworm"
  pull=(--pull)
else
  log "warning: no registry answered for debian:bookworm-slim; using the local porthole-base:bookworm and porthole-builder:bookworm"
  base="porthole-base:bookworm"
  builder="porthole-builder:bookworm"
  "$repo/scripts/setup/base-images.sh"
fi

old_id="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
built_at="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
build_log="$(mktemp /tmp/porthole-docker-build.XXXXXX.log)"
started=$SECONDS
log "building $image (version $version, base $base; about a minute)"
# The legacy builder, as the daemon's bollard build uses; no buildx plugin is needed.
if ! tar -C "$repo" -c chrome.Dockerfile sidecar/Cargo.toml sidecar/src \
  | DOCKER_BUILDKIT=0 docker build "${pull[@]}" --no-cache --rm --force-rm \
      --file chrome.Dockerfile \
      --build-arg "BASE_IMAGE=$base" --build-arg "BUILDER_IMAGE=$builder" \
      --label "porthole.version=$version" --label "porthole.built_at=$built_at" \
      --tag "$image" - >"$build_log" 2>&1; then
  log "build failed; last lines of $build_log:"
  tail -n 30 "$build_log" >&2
  exit 1
fi
rm -f "$build_log"
# The legacy builder leaves the builder stage behind as an untagged image, and the previous
# image loses its tag: remove both (an old image still used by a container stays).
docker image prune --force --filter label=porthole.stage=builder >/dev/null 2>&1 || true
new_id="$(docker image inspect --format '{{.Id}}' "$image")"
if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
  docker rmi "$old_id" >/dev/null 2>&1 || true
fi
chromium="$(docker run --rm --entrypoint /usr/bin/chromium "$image" --version 2>/dev/null || true)"
log "built $image in $((SECONDS - started)) s (${chromium:-chromium version unknown})"
