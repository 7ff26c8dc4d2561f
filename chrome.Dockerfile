# Porthole's Chromium sidecar image: headless Debian Chromium under porthole-sidecar (PID 1).
#
# The daemon builds it from a context holding only this file and sidecar/ (Cargo.toml, src/),
# so nothing else may be referenced here. Operators: `make docker-build` (scripts/docker-build.sh).
# Without a registry, pass BASE_IMAGE=porthole-base:bookworm and
# BUILDER_IMAGE=porthole-builder:bookworm (made by scripts/setup/base-images.sh).
#
# Run: docker run -p 127.0.0.1::9222 -e PORTHOLE_SECRET=<secret> IMAGE -- <chromium args>
ARG BASE_IMAGE=debian:bookworm-slim
ARG BUILDER_IMAGE=rust:1-slim-bookworm

FROM ${BUILDER_IMAGE} AS builder
# Marks the builder stage's leftover image so builds can prune it.
LABEL porthole.stage=builder
WORKDIR /build
COPY sidecar/Cargo.toml ./Cargo.toml
COPY sidecar/src ./src
# Std-only crate: no registry needed, so --offline works with Debian's cargo (rustc 1.63) too.
ENV CARGO_PROFILE_RELEASE_STRIP=symbols
RUN cargo build --release --offline \
 && install -m 0755 target/release/porthole-sidecar /porthole-sidecar

FROM ${BASE_IMAGE}
# One RUN so a --no-cache rebuild always fetches the current Chromium.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-color-emoji ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \
 && useradd --uid 1000 --user-group --create-home --shell /usr/sbin/nologin porthole \
 && install -d -o porthole -g porthole -m 0700 /profile
# /profile is owned by the image user, so an empty named volume mounted there inherits that
# owner. No VOLUME: the daemon mounts one only when the profile persists.
COPY --from=builder /porthole-sidecar /usr/local/bin/porthole-sidecar
USER porthole
ENV HOME=/home/porthole
WORKDIR /home/porthole
# The CDP gate (PORTHOLE_LISTEN): the only listener; Chrome speaks CDP on a pipe to the sidecar.
EXPOSE 9222
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/porthole-sidecar"]
CMD ["--"]
