#!/usr/bin/env bash
# Build the local base images that chrome.Dockerfile needs when no image registry answers.
#
#   porthole-base:bookworm     Debian bookworm (minbase) made by debootstrap and `docker import`
#   porthole-builder:bookworm  porthole-base:bookworm + Debian's cargo (rustc 1.63)
#
# Idempotent: an image that already exists is left alone; with both present this does nothing.
# Needs a running Docker engine (scripts/setup/docker.sh) and Debian's apt mirror.
# Env: PORTHOLE_BASE_IMAGE / PORTHOLE_BUILDER_IMAGE override the tags, DEBIAN_SUITE the suite.
set -euo pipefail

base_image="${PORTHOLE_BASE_IMAGE:-porthole-base:bookworm}"
builder_image="${PORTHOLE_BUILDER_IMAGE:-porthole-builder:bookworm}"
suite="${DEBIAN_SUITE:-bookworm}"

log() { echo "[base-images] $*" >&2; }
have_image() { docker image inspect "$1" >/dev/null 2>&1; }

if have_image "$base_image" && have_image "$builder_image"; then
  exit 0
fi

if ! docker info >/dev/null 2>&1; then
  log "the Docker engine does not answer; run scripts/setup/docker.sh first"
  exit 1
fi

if ! have_image "$base_image"; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
    apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  rootfs="$(mktemp -d /tmp/porthole-rootfs.XXXXXX)"
  trap 'rm -rf "$rootfs"' EXIT
  started=$SECONDS
  log "building $base_image with debootstrap --variant=minbase $suite (about 35 s)"
  if ! debootstrap --variant=minbase "$suite" "$rootfs" >"$rootfs.log" 2>&1; then
    log "debootstrap failed; last lines of $rootfs.log:"
    tail -n 20 "$rootfs.log" >&2
    exit 1
  fi
  rm -f "$rootfs.log"
  # Leave no apt lists or caches in the image; `apt-get update` in later stages fetches fresh ones.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' \
    - "$base_image" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  log "built $base_image in $((SECONDS - started)) s"
fi

if ! have_image "$builder_image"; then
  started=$SECONDS
  log "building $builder_image (Debian's cargo, about a minute)"
  build_log="$(mktemp /tmp/porthole-builder-build.XXXXXX.log)"
  if ! docker build --tag "$builder_image" --build-arg "BASE=$base_image" - >"$build_log" 2>&1 <<'DOCKERFILE'
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends cargo ca-certificates \
 && rm -rf /var/lib/apt/lists/*
DOCKERFILE
  then
    log "docker build of $builder_image failed; last lines of $build_log:"
    tail -n 20 "$build_log" >&2
    exit 1
  fi
  rm -f "$build_log"
  log "built $builder_image in $((SECONDS - started)) s"
fi
