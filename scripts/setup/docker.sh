#!/usr/bin/env bash
# Make a Docker engine answer: install docker.io if dockerd is missing, start dockerd in the
# background if `docker info` does not answer (no systemd here), and wait for it with a deadline.
# Idempotent and quiet when the engine already answers. Log: /var/log/porthole-dockerd.log.
#
# What this sandbox needs (checked 2026-11 on Debian bookworm, kernel 6.18, Debian docker.io
# 20.10.24, API 1.41; the CLI on PATH may be newer and negotiates down): plain `dockerd` with
# no flags works. Storage driver overlay2 on the ext4 root, cgroup v1 (cgroupfs), iptables
# 1.8.9 (nf_tables) accepts Docker's NAT rules, so the default bridge and published
# 127.0.0.1:<random> ports work (`docker run -p 127.0.0.1::9222`), and `docker build` reaches
# Debian's apt mirror from inside. No registry answers, so images come from
# scripts/setup/base-images.sh. Only if dockerd dies on an iptables error (other sandboxes)
# is it restarted with --iptables=false: published 127.0.0.1 ports still work through
# docker-proxy, but containers then have no outbound NAT (no apt inside `docker build`).
#
# Env: PORTHOLE_DOCKERD_TIMEOUT (seconds to wait, default 60).
set -euo pipefail

log_file=/var/log/porthole-dockerd.log
timeout_s="${PORTHOLE_DOCKERD_TIMEOUT:-60}"

log() { echo "[docker] $*" >&2; }
answers() { timeout 10 docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && answers; then
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "installing docker.io (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
  # With its recommends (as verified here); docker.io pulls in containerd, runc and iptables.
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq docker.io >/dev/null
fi

# Waits for the engine; returns 1 if the dockerd with pid $1 exited first or time ran out.
wait_for_engine() {
  local pid="$1" deadline=$((SECONDS + timeout_s))
  while ((SECONDS < deadline)); do
    answers && return 0
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
      return 1
    fi
    sleep 0.5
  done
  return 1
}

# Whether the default engine's own dockerd runs (by its pidfile: a second engine started for the
# remote-engine tests runs beside it with a pidfile of its own, and must not count).
main_engine_running() {
  local pid
  pid="$(cat /var/run/docker.pid 2>/dev/null)" || return 1
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == dockerd ]]
}

start_dockerd() {
  echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) dockerd $*" >>"$log_file"
  # setsid: the engine outlives this script and the shell that ran it.
  setsid dockerd "$@" >>"$log_file" 2>&1 </dev/null &
  echo $!
}

if main_engine_running; then
  # Started by someone else and still coming up: wait for it instead of starting a second one.
  log "dockerd is running but not answering yet; waiting up to ${timeout_s} s"
  if wait_for_engine ""; then
    exit 0
  fi
  log "dockerd runs but does not answer; see $log_file"
  exit 1
fi

log "starting dockerd (log: $log_file)"
pid="$(start_dockerd)"
if wait_for_engine "$pid"; then
  exit 0
fi
if ! kill -0 "$pid" 2>/dev/null && tail -n 50 "$log_file" | grep -qi iptables; then
  log "dockerd failed on iptables; retrying with --iptables=false"
  pid="$(start_dockerd --iptables=false)"
  if wait_for_engine "$pid"; then
    exit 0
  fi
fi
log "the Docker engine did not answer within ${timeout_s} s; last lines of $log_file:"
tail -n 20 "$log_file" >&2
exit 1
