#!/usr/bin/env bash
# test-docker.sh: the Docker engine the compose test runs against. Installs Debian's docker.io and
# docker-compose when missing, and starts a dockerd of the project's own unless it is up: its state, socket
# and containerd under $LAZYBOY_DOCKER_DIR (default /var/tmp/lazyboy-docker), apart from any Docker of the
# host's, in a network namespace of its own, so that its bridges and firewall rules never meet the host's
# (which may drop forwarded packets). The host reaches it through one veth pair: Docker's side is
# 10.98.0.1 (published ports are there), the host's 10.98.0.254 (what containers reach the host by).
# Serialised by a lock. Prints one line: DOCKER_HOST DOCKER_ADDRESS HOST_ADDRESS STARTED (STARTED 1 when
# this call started it; whoever started it stops it: docker-down.sh). Images stay loaded across runs.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
D=${LAZYBOY_DOCKER_DIR:-/var/tmp/lazyboy-docker}
SOCK=$D/docker.sock
DOCKER_IP=10.98.0.1
HOST_IP=10.98.0.254
HOST_IF=lbdock0
log() { printf '[test-docker] %s\n' "$*" >&2; }
mkdir -p "$D"
exec 9>"$D/lock"
flock 9

# shellcheck source=../apt-packages.sh
. "$HERE/../apt-packages.sh"
ensure_packages test-docker docker.io docker-compose || true

docker_cli() { DOCKER_HOST=unix://$SOCK /usr/bin/docker "$@"; }
started=0
if ! docker_cli version >/dev/null 2>&1; then
  bash "$HERE/docker-down.sh"
  log "starting dockerd ($D)"
  rm -f "$SOCK" "$D/dockerd.pid" "$D/ns.ready"
  # The namespace, held by `sleep infinity`; the daemons outlive this script and must not inherit the lock.
  setsid unshare --net -- sh -c "ip link set lo up && touch '$D/ns.ready' && exec sleep infinity" \
    >"$D/ns.log" 2>&1 </dev/null 9>&- &
  echo $! >"$D/holder.pid"
  until [ -f "$D/ns.ready" ]; do sleep 0.05; done
  H=$(cat "$D/holder.pid")
  ip link del "$HOST_IF" 2>/dev/null || true
  ip link add "$HOST_IF" type veth peer name dockerif netns "$H"
  ip addr add "$HOST_IP/24" dev "$HOST_IF"
  ip link set "$HOST_IF" up
  nsenter -t "$H" -n -- ip addr add "$DOCKER_IP/24" dev dockerif
  nsenter -t "$H" -n -- ip link set dockerif up
  # Containers reach the host (the test's model and pages) through it; Docker masquerades them as 10.98.0.1.
  nsenter -t "$H" -n -- ip route add default via "$HOST_IP"
  setsid nsenter -t "$H" -n -- /usr/sbin/dockerd --data-root "$D/root" --exec-root "$D/exec" \
    --pidfile "$D/dockerd.pid" --host "unix://$SOCK" >"$D/dockerd.log" 2>&1 </dev/null 9>&- &
  for _ in $(seq 1 120); do
    docker_cli version >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker_cli version >/dev/null 2>&1 || {
    tail -20 "$D/dockerd.log" >&2
    log "dockerd did not come up"
    exit 1
  }
  started=1
fi
echo "unix://$SOCK $DOCKER_IP $HOST_IP $started"
