#!/usr/bin/env bash
# build.sh worker|api|web|postgres|redis: one of LazyBoy's images as an OCI archive, from Debian packages and
# the project's own build, with no registry and no Docker engine. Prints the archive's path and the image's
# name (`localhost/lazyboy/<image>:<content hash>`) on one line; `ctr images import` (or `k3s ctr images
# import`) loads it. The Dockerfiles beside this script build the same images with Docker.
#   worker    a computer's desktop and the worker (apps/worker), port 3102
#   api       the API (apps/api) and `prisma migrate deploy` for its database, port 3100
#   web       the web server (apps/web: Next.js behind its custom server), port 3101
#   postgres  PostgreSQL 15 with pgvector, for the chart's StatefulSet, port 5432
#   redis     Redis 7, for the chart's StatefulSet, port 6379
#
# Up to two layers, each cached by what it is made of under $LAZYBOY_CACHE_DIR/images (default /var/cache/lazyboy):
#   1. Debian bookworm (mmdebstrap, minbase) with the user lazyboy (uid 1000), rootfs.sh: for the worker
#      with the host's Node.js and the desktop packages of scripts/desktop-packages.sh (desktop-rootfs.sh,
#      ~1-3 min cold), for the API and web with Node.js and a few packages (server-rootfs.sh, ~30 s cold),
#      for postgres and redis with their Debian packages and no Node.js (postgres-rootfs.sh,
#      redis-rootfs.sh, ~30 s cold each). Its key: those scripts and the Node binary; the packages come from
#      the machine's own apt sources and cache.
#   2. The app: its build and its production dependencies (stage-app.mjs), a few seconds; for postgres,
#      pgvector (pgvector.sh, built once, ~20 s) and the entrypoint (postgres-entrypoint.sh); redis has none.
# Run after the project's build (for worker, api and web), as root on Debian 12.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/images
IMAGE=${1:-}

# shellcheck source=../../scripts/apt-packages.sh
. "$REPO/scripts/apt-packages.sh"
log() { printf '[images] %s\n' "$*" >&2; }

# Each image: its lower layer (the script that makes it, and the files its key covers beside that script,
# rootfs.sh and oci-layer.sh), whether it has Node.js, what its upper layer is (`top`, below: nothing for
# redis), the file the project's build must have made for it, and its own part of the image config (the
# rest is below). The worker is its own PID 1 (it handles SIGTERM and ends the desktop it started); the
# Node servers run under tini; postgres and redis are PID 1 themselves (each reaps its own children and
# shuts down on its stop signal).
SYSTEM_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
with_node=1 built='' top=stage
case $IMAGE in
  worker)
    base_name=worker-desktop base_script=desktop-rootfs.sh base_inputs=("$REPO/scripts/desktop-packages.sh")
    built=apps/worker/dist/main.js
    config='{
  "Env": ["PATH='$SYSTEM_PATH'", "LAZYBOY_WORKER_HOST=0.0.0.0",
    "LAZYBOY_COMPUTER_HOME=/var/lib/lazyboy/computer/home", "LAZYBOY_SHELL_BOUNDARY=container"],
  "Cmd": ["/usr/local/bin/node", "/opt/lazyboy/apps/worker/dist/main.js"],
  "WorkingDir": "/home/lazyboy",
  "ExposedPorts": {"3102/tcp": {}}
}'
    ;;
  api)
    base_name=server-base base_script=server-rootfs.sh base_inputs=()
    built=apps/api/dist/main.js
    # In a pod the API drives worker pods: the local pool driver needs the worker beside it, which this
    # image lacks. `prisma migrate deploy` runs from /opt/lazyboy, where prisma.config.ts is; without
    # CHECKPOINT_DISABLE the Prisma CLI asks the internet for updates at every run.
    config='{
  "Env": ["PATH=/opt/lazyboy/node_modules/.bin:'$SYSTEM_PATH'", "LAZYBOY_API_HOST=0.0.0.0",
    "LAZYBOY_POOL_DRIVER=kubernetes", "CHECKPOINT_DISABLE=1"],
  "Entrypoint": ["/usr/bin/tini", "--"],
  "Cmd": ["/usr/local/bin/node", "/opt/lazyboy/apps/api/dist/main.js"],
  "WorkingDir": "/opt/lazyboy",
  "ExposedPorts": {"3100/tcp": {}}
}'
    ;;
  web)
    base_name=server-base base_script=server-rootfs.sh base_inputs=()
    built=apps/web/.next/BUILD_ID
    # LAZYBOY_API_URL (where the API is) and LAZYBOY_INTERNAL_SECRET come from whoever runs it.
    config='{
  "Env": ["PATH='$SYSTEM_PATH'", "LAZYBOY_WEB_HOST=0.0.0.0"],
  "Entrypoint": ["/usr/bin/tini", "--"],
  "Cmd": ["/usr/local/bin/node", "/opt/lazyboy/apps/web/dist/server/main.js"],
  "WorkingDir": "/opt/lazyboy/apps/web",
  "ExposedPorts": {"3101/tcp": {}}
}'
    ;;
  postgres)
    base_name=postgres-base base_script=postgres-rootfs.sh base_inputs=() with_node=0 top=postgres
    # The user postgres (999) as in the official images; the server's own binaries first in PATH (Debian's
    # /usr/bin ones are wrappers choosing among installed versions). SIGINT: postgres's fast shutdown
    # (SIGTERM waits for every client to disconnect); containerd's CRI sends the image's stop signal.
    config='{
  "Env": ["PATH=/usr/lib/postgresql/15/bin:'$SYSTEM_PATH'", "PGDATA=/var/lib/postgresql/data/pgdata"],
  "Entrypoint": ["/usr/local/bin/postgres-entrypoint"],
  "WorkingDir": "/var/lib/postgresql",
  "ExposedPorts": {"5432/tcp": {}},
  "StopSignal": "SIGINT",
  "User": "999:999"
}'
    ;;
  redis)
    base_name=redis-base base_script=redis-rootfs.sh base_inputs=() with_node=0 top=''
    # Without settings it serves on loopback alone (Redis's protected mode, no password): the chart passes
    # its own on standard input, the password among them.
    config='{
  "Env": ["PATH='$SYSTEM_PATH'"],
  "Cmd": ["redis-server", "--dir", "/data", "--appendonly", "yes"],
  "WorkingDir": "/data",
  "ExposedPorts": {"6379/tcp": {}},
  "User": "999:999"
}'
    ;;
  *) echo "usage: build.sh worker|api|web|postgres|redis" >&2; exit 2 ;;
esac

# The upper layer's content, into the directory $1.
top_layer() {
  case $top in
    stage)
      mkdir -p "$1/opt"
      node "$HERE/stage-app.mjs" "apps/$IMAGE" "$1/opt/lazyboy" 2>/dev/null
      ;;
    postgres)
      local pgvector
      pgvector=$(bash "$HERE/pgvector.sh")
      cp -a "$pgvector/." "$1/"
      install -D -m 0755 "$HERE/postgres-entrypoint.sh" "$1/usr/local/bin/postgres-entrypoint"
      ;;
  esac
}

ensure_packages images mmdebstrap jq || true
NODE=''
[ "$with_node" = 0 ] || NODE=$(command -v node)
export NODE
[ -z "$built" ] || [ -f "$REPO/$built" ] || { log "$built is missing: run the project's build first"; exit 1; }
mkdir -p "$CACHE/layers"
# Layers are written under a temporary name and renamed when whole: a build killed half-way leaves no layer
# a later run would take for a good one.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/lazyboy-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ------------------------------------------------------------------------------------------ 1. the system
base_key=$( (cd "$HERE" && cat "$base_script" rootfs.sh oci-layer.sh "${base_inputs[@]}"; [ -z "$NODE" ] || sha256sum "$NODE" | cut -d' ' -f1) |
  sha256sum | cut -c1-16)
base=$CACHE/layers/$base_name-$base_key.tar.gz
if [ ! -f "$base" ]; then
  log "making the $base_name layer (Debian bookworm${NODE:+, Node.js}, $base_script)"
  started=$(date +%s)
  # Its tools' chatter goes to a log, shown if it fails: stdout is this script's answer alone.
  bash "$HERE/$base_script" "$WORK/base" >"$WORK/base.log" 2>&1 || { cat "$WORK/base.log" >&2; exit 1; }
  bash "$HERE/oci-layer.sh" "$WORK/base" "$base.partial"
  mv "$base.partial.diffid" "$base.diffid"
  mv "$base.partial" "$base"
  rm -rf "$WORK/base"
  log "$base_name layer: $(du -h "$base" | cut -f1), $(($(date +%s) - started)) s"
fi

# ------------------------------------------------------------------------------------------------ 2. the app
layers=("$base")
if [ -n "$top" ]; then
  mkdir -p "$WORK/app"
  top_layer "$WORK/app"
  bash "$HERE/oci-layer.sh" "$WORK/app" "$WORK/app.tar.gz" --zero-mtime
  layers+=("$WORK/app.tar.gz")
fi

# What every image has: a UTF-8 locale, and the user lazyboy unless its config names another; the Node
# images also Node in production mode and lazyboy's home.
jq --arg title "lazyboy-$IMAGE" --argjson node "$with_node" '.Env += (if $node == 1 then ["NODE_ENV=production", "HOME=/home/lazyboy"] else [] end) + ["LANG=C.UTF-8"] |
  . + {User: (.User // "1000:1000"), Labels: {"org.opencontainers.image.title": $title}}' <<<"$config" >"$WORK/config.json"
# The tag covers the config too: a changed command or environment is another image.
tag=$(for layer in "${layers[@]}"; do cat "$layer.diffid"; done | cat - "$WORK/config.json" | sha256sum | cut -c1-16)
ref=localhost/lazyboy/$IMAGE:$tag
# .image.tar: OCI layout and Docker archive in one (oci-image.sh).
out=$CACHE/$IMAGE-$tag.image.tar
if [ ! -f "$out" ]; then
  bash "$HERE/oci-image.sh" "$out.partial" "$ref" "$WORK/config.json" "${layers[@]}" 2>/dev/null
  mv "$out.partial" "$out"
  # Older archives and lower layers are of no use once newer ones exist (an hour's grace for a build
  # that is still loading one).
  find "$CACHE" -maxdepth 1 \( -name "$IMAGE-*.oci.tar" -o -name "$IMAGE-*.image.tar" \) ! -name "$IMAGE-$tag.image.tar" -mmin +60 -delete
  find "$CACHE/layers" -maxdepth 1 -name "$base_name-*" ! -name "$base_name-$base_key.*" -mmin +60 -delete
fi
echo "$out $ref"
