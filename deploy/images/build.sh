#!/usr/bin/env bash
# build.sh worker|api|web: one of LazyBoy's images as an OCI archive, from Debian packages and the project's
# own build, with no registry and no Docker engine. Prints the archive's path and the image's name
# (`localhost/lazyboy/<image>:<content hash>`) on one line; `ctr images import` (or `k3s ctr images
# import`) loads it. The Dockerfiles beside this script build the same images with Docker.
#   worker  a computer's desktop and the worker (apps/worker), port 3102
#   api     the API (apps/api) and `prisma migrate deploy` for its database, port 3100
#   web     the web server (apps/web: Next.js behind its custom server), port 3101
#
# Two layers, each cached by what it is made of under $LAZYBOY_CACHE_DIR/images (default /var/cache/lazyboy):
#   1. Debian bookworm (mmdebstrap, minbase) with the host's Node.js and the user lazyboy (uid 1000),
#      rootfs.sh: for the worker with the desktop packages of scripts/desktop-packages.sh (desktop-rootfs.sh,
#      ~1-3 min cold), for the API and web one layer of a few packages (server-rootfs.sh, ~30 s cold). Its
#      key: those scripts and the Node binary; the packages come from the machine's own apt sources and cache.
#   2. The app: its build and its production dependencies (stage-app.mjs), a few seconds.
# Run after the project's build, as root on Debian 12.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/images
IMAGE=${1:-}

# shellcheck source=../../scripts/apt-packages.sh
. "$REPO/scripts/apt-packages.sh"
log() { printf '[images] %s\n' "$*" >&2; }

# Each image: its lower layer (the script that makes it, and the files its key covers beside that script,
# rootfs.sh and oci-layer.sh), the file its build must have made, and its own part of the image config
# (the rest is below). The worker is its own PID 1 (it handles SIGTERM and ends the desktop it started);
# the servers run under tini.
SYSTEM_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
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
  *) echo "usage: build.sh worker|api|web" >&2; exit 2 ;;
esac

ensure_packages images mmdebstrap jq || true
NODE=$(command -v node)
export NODE
[ -f "$REPO/$built" ] || { log "$built is missing: run the project's build first"; exit 1; }
mkdir -p "$CACHE/layers"
# Layers are written under a temporary name and renamed when whole: a build killed half-way leaves no layer
# a later run would take for a good one.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/lazyboy-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ------------------------------------------------------------------------------------------ 1. the system
base_key=$( (cd "$HERE" && cat "$base_script" rootfs.sh oci-layer.sh "${base_inputs[@]}"; sha256sum "$NODE" | cut -d' ' -f1) |
  sha256sum | cut -c1-16)
base=$CACHE/layers/$base_name-$base_key.tar.gz
if [ ! -f "$base" ]; then
  log "making the $base_name layer (Debian bookworm, Node.js, $base_script)"
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
mkdir -p "$WORK/app/opt"
node "$HERE/stage-app.mjs" "apps/$IMAGE" "$WORK/app/opt/lazyboy" 2>/dev/null
bash "$HERE/oci-layer.sh" "$WORK/app" "$WORK/app.tar.gz" --zero-mtime

# What every image has: Node in production mode, the user lazyboy and its home, a UTF-8 locale.
jq --arg title "lazyboy-$IMAGE" '.Env += ["NODE_ENV=production", "HOME=/home/lazyboy", "LANG=C.UTF-8"] |
  . + {User: "1000:1000", Labels: {"org.opencontainers.image.title": $title}}' <<<"$config" >"$WORK/config.json"
# The tag covers the config too: a changed command or environment is another image.
tag=$(cat "$base.diffid" "$WORK/app.tar.gz.diffid" "$WORK/config.json" | sha256sum | cut -c1-16)
ref=localhost/lazyboy/$IMAGE:$tag
out=$CACHE/$IMAGE-$tag.oci.tar
if [ ! -f "$out" ]; then
  bash "$HERE/oci-image.sh" "$out.partial" "$ref" "$WORK/config.json" "$base" "$WORK/app.tar.gz" 2>/dev/null
  mv "$out.partial" "$out"
  # Older archives and lower layers are of no use once newer ones exist (an hour's grace for a build
  # that is still loading one).
  find "$CACHE" -maxdepth 1 -name "$IMAGE-*.oci.tar" ! -name "$IMAGE-$tag.oci.tar" -mmin +60 -delete
  find "$CACHE/layers" -maxdepth 1 -name "$base_name-*" ! -name "$base_name-$base_key.*" -mmin +60 -delete
fi
echo "$out $ref"
