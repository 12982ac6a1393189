#!/usr/bin/env bash
# build.sh worker: the worker image (a computer's desktop and the worker) as an OCI archive, from Debian
# packages and the project's own build, with no registry and no Docker engine. Prints the archive's path and
# the image's name (`localhost/lazyboy/worker:<content hash>`) on one line; `ctr images import` (or
# `k3s ctr images import`) loads it. The Dockerfiles beside this script build the same images with Docker.
#
# Two layers, each cached by what it is made of under $LAZYBOY_CACHE_DIR/images (default /var/cache/lazyboy):
#   1. Debian bookworm (mmdebstrap, minbase) with the desktop packages of scripts/desktop-packages.sh, the
#      host's Node.js, and the computer's user (uid 1000): desktop-rootfs.sh. Its key: that script, the
#      package list and the Node binary. Cold: ~1-3 min; the packages come from the machine's own apt sources and apt cache.
#   2. The app: apps/worker's build and its production dependencies (stage-app.mjs), a few seconds.
# Run after the project's build, as root on Debian 12.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/images
IMAGE=${1:-}
[ "$IMAGE" = worker ] || { echo "usage: build.sh worker" >&2; exit 2; }

# shellcheck source=../../scripts/apt-packages.sh
. "$REPO/scripts/apt-packages.sh"
log() { printf '[images] %s\n' "$*" >&2; }

ensure_packages images mmdebstrap jq || true
NODE=$(command -v node)
export NODE
[ -f "$REPO/apps/worker/dist/main.js" ] ||
  { log "apps/worker is not built; run the project's build first"; exit 1; }
mkdir -p "$CACHE/layers"
# Layers are written under a temporary name and renamed when whole: a build killed half-way leaves no layer
# a later run would take for a good one.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/lazyboy-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------------------------------- 1. the desktop
base_key=$( (cat "$HERE/desktop-rootfs.sh" "$HERE/oci-layer.sh" "$REPO/scripts/desktop-packages.sh"; sha256sum "$NODE" | cut -d' ' -f1) | sha256sum | cut -c1-16)
base=$CACHE/layers/worker-desktop-$base_key.tar.gz
if [ ! -f "$base" ]; then
  log "making the desktop layer (Debian bookworm and the desktop packages)"
  started=$(date +%s)
  bash "$HERE/desktop-rootfs.sh" "$WORK/desktop"
  bash "$HERE/oci-layer.sh" "$WORK/desktop" "$base.partial"
  mv "$base.partial.diffid" "$base.diffid"
  mv "$base.partial" "$base"
  rm -rf "$WORK/desktop"
  log "desktop layer: $(du -h "$base" | cut -f1), $(($(date +%s) - started)) s"
fi

# ------------------------------------------------------------------------------------------------ 2. the app
mkdir -p "$WORK/app/opt"
node "$HERE/stage-app.mjs" apps/worker "$WORK/app/opt/lazyboy" 2>/dev/null
bash "$HERE/oci-layer.sh" "$WORK/app" "$WORK/app.tar.gz" --zero-mtime

tag=$(cat "$base.diffid" "$WORK/app.tar.gz.diffid" | sha256sum | cut -c1-16)
ref=localhost/lazyboy/worker:$tag
out=$CACHE/worker-$tag.oci.tar
if [ ! -f "$out" ]; then
  cat >"$WORK/config.json" <<'JSON'
{
  "Env": [
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "NODE_ENV=production",
    "HOME=/home/lazyboy",
    "LANG=C.UTF-8",
    "LAZYBOY_WORKER_HOST=0.0.0.0",
    "LAZYBOY_COMPUTER_HOME=/var/lib/lazyboy/computer/home",
    "LAZYBOY_SHELL_BOUNDARY=container"
  ],
  "Cmd": ["/usr/local/bin/node", "/opt/lazyboy/apps/worker/dist/main.js"],
  "User": "1000:1000",
  "WorkingDir": "/home/lazyboy",
  "ExposedPorts": {"3102/tcp": {}},
  "Labels": {"org.opencontainers.image.title": "lazyboy-worker"}
}
JSON
  bash "$HERE/oci-image.sh" "$out.partial" "$ref" "$WORK/config.json" "$base" "$WORK/app.tar.gz" 2>/dev/null
  mv "$out.partial" "$out"
  # Older archives and desktop layers are of no use once newer ones exist (an hour's grace for a build
  # that is still loading one).
  find "$CACHE" -maxdepth 1 -name 'worker-*.oci.tar' ! -name "worker-$tag.oci.tar" -mmin +60 -delete
  find "$CACHE/layers" -maxdepth 1 -name 'worker-desktop-*' ! -name "worker-desktop-$base_key.*" -mmin +60 -delete
fi
echo "$out $ref"
