#!/usr/bin/env bash
# A second, real Docker engine on this machine standing in for a remote host (DESIGN.md §14,
# issue 13). Idempotent: when it already answers over TLS this does nothing.
#
#   start (default)  make certificates if missing, create its bridge, start it, load the base
#                    images from the first engine into it
#   stop             stop it (leaves data, certificates and bridge for the next start)
#   env              print the DOCKER_HOST / DOCKER_CERT_PATH / DOCKER_TLS_VERIFY lines to use it
#
# Everything is its own: --data-root, --exec-root, --pidfile, a unix socket, the bridge
# `phremote0` (10.213.0.1/24, so it never clashes with docker0's 172.17.0.0/16), and
# tcp://127.0.0.1:<port> with mutual TLS (CA, server cert for 127.0.0.1/localhost, client
# cert, all made here with openssl). It runs with --iptables=false so it never rewrites the
# first engine's rules; this script adds the two FORWARD rules and the MASQUERADE rule its
# bridge needs (apt inside `docker build` must reach Debian's mirror).
#
# Files: state $root (default /var/lib/porthole-remote-dockerd): data/, certs/{ca,cert,key}.pem
# (client), certs/server-*.pem; runtime $run (default /run/porthole-remote-dockerd): exec/,
# docker.sock, dockerd.pid, env. Log: /var/log/porthole-remote-dockerd.log.
#
# Env: PORTHOLE_REMOTE_DOCKERD_PORT (default 23760), PORTHOLE_REMOTE_DOCKERD_ROOT,
# PORTHOLE_REMOTE_DOCKERD_RUN, PORTHOLE_DOCKERD_TIMEOUT (seconds, default 60),
# PORTHOLE_BASE_IMAGE / PORTHOLE_BUILDER_IMAGE (images copied from the first engine).
set -euo pipefail

port="${PORTHOLE_REMOTE_DOCKERD_PORT:-23760}"
root="${PORTHOLE_REMOTE_DOCKERD_ROOT:-/var/lib/porthole-remote-dockerd}"
run="${PORTHOLE_REMOTE_DOCKERD_RUN:-/run/porthole-remote-dockerd}"
timeout_s="${PORTHOLE_DOCKERD_TIMEOUT:-60}"
bridge=phremote0
bridge_cidr=10.213.0.1/24
subnet=10.213.0.0/24
log_file=/var/log/porthole-remote-dockerd.log
certs="$root/certs"
base_image="${PORTHOLE_BASE_IMAGE:-porthole-base:bookworm}"
builder_image="${PORTHOLE_BUILDER_IMAGE:-porthole-builder:bookworm}"

log() { echo "[remote-dockerd] $*" >&2; }

tls_env() {
  echo "DOCKER_HOST=tcp://127.0.0.1:$port"
  echo "DOCKER_CERT_PATH=$certs"
  echo "DOCKER_TLS_VERIFY=1"
}

# The docker CLI talking to the second engine over TLS (what the tests use too).
remote_docker() {
  DOCKER_HOST="tcp://127.0.0.1:$port" DOCKER_CERT_PATH="$certs" DOCKER_TLS_VERIFY=1 \
    timeout 600 docker "$@"
}
answers() { remote_docker info >/dev/null 2>&1; }

make_certs() {
  [[ -s "$certs/ca.pem" && -s "$certs/cert.pem" && -s "$certs/key.pem" &&
    -s "$certs/server-cert.pem" && -s "$certs/server-key.pem" ]] && return 0
  log "making TLS certificates in $certs (openssl)"
  mkdir -p "$certs"
  chmod 0700 "$certs"
  local tmp
  tmp="$(mktemp -d)"
  (
    cd "$tmp"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -keyout ca-key.pem -out ca.pem \
      -subj "/CN=porthole-remote-dockerd test CA" >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -keyout server-key.pem -out server.csr \
      -subj "/CN=127.0.0.1" >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile server.ext -out server-cert.pem >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -keyout key.pem -out client.csr \
      -subj "/CN=porthole-test-client" >/dev/null 2>&1
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile client.ext -out cert.pem >/dev/null 2>&1
    cp ca.pem ca-key.pem server-key.pem server-cert.pem key.pem cert.pem "$certs/"
  )
  rm -rf "$tmp"
  chmod 0600 "$certs"/*key.pem
}

make_bridge() {
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    log "creating bridge $bridge ($bridge_cidr)"
    ip link add "$bridge" type bridge
  fi
  ip -4 addr show dev "$bridge" | grep -q "${bridge_cidr%/*}/" ||
    ip addr add "$bridge_cidr" dev "$bridge"
  ip link set "$bridge" up
  # --iptables=false: the rules this engine's containers need, added once.
  iptables -t nat -C POSTROUTING -s "$subnet" ! -o "$bridge" -j MASQUERADE 2>/dev/null ||
    iptables -t nat -A POSTROUTING -s "$subnet" ! -o "$bridge" -j MASQUERADE
  iptables -C FORWARD -i "$bridge" -j ACCEPT 2>/dev/null ||
    iptables -I FORWARD -i "$bridge" -j ACCEPT
  iptables -C FORWARD -o "$bridge" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT 2>/dev/null ||
    iptables -I FORWARD -o "$bridge" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
}

running_pid() {
  local pid
  pid="$(cat "$run/dockerd.pid" 2>/dev/null || true)"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

load_base_images() {
  local image
  for image in "$base_image" "$builder_image"; do
    if remote_docker image inspect "$image" >/dev/null 2>&1; then
      continue
    fi
    if ! docker image inspect "$image" >/dev/null 2>&1; then
      log "$image is not on the first engine; run scripts/setup/base-images.sh first"
      return 1
    fi
    log "loading $image into the second engine (docker save | docker load)"
    docker save "$image" | remote_docker load >/dev/null
  done
}

start() {
  command -v dockerd >/dev/null || {
    log "dockerd is missing; run scripts/setup/docker.sh first"
    exit 1
  }
  make_certs
  make_bridge
  if ! answers; then
    if pid="$(running_pid)"; then
      log "dockerd (pid $pid) runs but does not answer yet; waiting"
    else
      mkdir -p "$root/data" "$run/exec"
      log "starting the second dockerd on tcp://127.0.0.1:$port (log: $log_file)"
      echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$log_file"
      setsid dockerd \
        --data-root "$root/data" \
        --exec-root "$run/exec" \
        --pidfile "$run/dockerd.pid" \
        --host "unix://$run/docker.sock" \
        --host "tcp://127.0.0.1:$port" \
        --tlsverify --tlscacert "$certs/ca.pem" \
        --tlscert "$certs/server-cert.pem" --tlskey "$certs/server-key.pem" \
        --bridge "$bridge" --iptables=false --ip-masq=false \
        >>"$log_file" 2>&1 </dev/null &
    fi
    local deadline=$((SECONDS + timeout_s))
    until answers; do
      if ((SECONDS >= deadline)); then
        log "the second engine did not answer within ${timeout_s} s; last lines of $log_file:"
        tail -n 20 "$log_file" >&2
        exit 1
      fi
      sleep 0.5
    done
  fi
  tls_env >"$run/env"
  load_base_images
}

stop() {
  local pid
  if pid="$(running_pid)"; then
    log "stopping the second dockerd (pid $pid)"
    kill "$pid"
    local deadline=$((SECONDS + timeout_s))
    while kill -0 "$pid" 2>/dev/null; do
      if ((SECONDS >= deadline)); then
        log "dockerd (pid $pid) did not stop within ${timeout_s} s"
        exit 1
      fi
      sleep 0.2
    done
  fi
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
env) tls_env ;;
*)
  echo "usage: $0 [start|stop|env]" >&2
  exit 2
  ;;
esac
