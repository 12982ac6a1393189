#!/usr/bin/env bash
# docker-down.sh: stops the dockerd test-docker.sh started (its containers stop with it) and its network
# namespace (the veth pair goes with it); images and volumes stay in $LAZYBOY_DOCKER_DIR for the next run.
set -uo pipefail
D=${LAZYBOY_DOCKER_DIR:-/var/tmp/lazyboy-docker}
stop() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$1"
}
stop "$D/dockerd.pid"
stop "$D/holder.pid"
ip link del lbdock0 2>/dev/null
rm -f "$D/ns.ready" "$D/docker.sock"
exit 0
