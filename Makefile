# Porthole — the two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash
CARGO ?= cargo
# Tests start many Chromiums and Docker containers (one builds the sidecar image); on a
# 2-core machine a fourth thread starved starts past their deadlines. Keep it at 3.
TEST_THREADS ?= 3

.PHONY: run test setup setup-test build lint bench docker-build clean

## Set up what is missing, build, and start Porthole; prints the pane URL.
run: setup build
	@if docker info >/dev/null 2>&1; then scripts/setup/base-images.sh; fi
	./target/release/porthole serve

## Set up what is missing and run every check and test.
test: setup-test lint
	$(CARGO) build --workspace --bins
	$(CARGO) test --workspace -- --test-threads=$(TEST_THREADS)

setup:
	@scripts/setup/rust.sh
	@scripts/setup/chromium.sh

setup-test: setup
	@scripts/setup/cookie-browsers.sh
	@scripts/setup/xvfb.sh
	@scripts/setup/vault-tools.sh
	@scripts/setup/schemathesis.sh
	@scripts/setup/cdp-clients.sh
	@scripts/setup/browser-use.sh
	@scripts/setup/docker.sh
	@scripts/setup/base-images.sh
	@scripts/setup/remote-dockerd.sh start

build:
	$(CARGO) build --release --bin porthole

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

clean:
	$(CARGO) clean

## Rebuild the docker-mode sidecar image by hand (`porthole docker-build`: no cache, current
## Chromium, labelled with this version). scripts/docker-build.sh does the same without Rust.
docker-build: setup
	@scripts/setup/docker.sh
	@scripts/setup/base-images.sh
	$(CARGO) run --release -q --bin porthole -- docker-build

## Measure against baselines run in the same invocation (prints ratios).
bench: setup
	@scripts/setup/cdp-clients.sh
	$(CARGO) build --release --workspace --bins
	./target/release/porthole-bench
