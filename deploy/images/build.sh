#!/usr/bin/env bash
# build.sh worker: the worker image (a computer's desktop and the worker) as an OCI archive, from Debian
# packages and the project's own build, with no registry and no Docker engine. Prints the archive's path and
# the image's name (`localhost/lazyboy/worker:<content hash>`) on one line; `ctr images import` (or
# `k3s ctr images import`) loads it. The Dockerfiles beside this script build the same images with Docker.
#
# Two layers, each cached by what it is made of under $LAZYBOY_CACHE_DIR/images (default /var/cache/lazyboy):
#   1. Debian bookworm (mmdebstrap, minbase) with the desktop packages of scripts/desktop-packages.sh, the
#      host's Node.js, and the computer's user (uid 1000). Its key: this script, the package list and the
#      Node binary. Cold: ~1-3 min; the packages come from the machine's own apt sources and apt cache.
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
# shellcheck source=../../scripts/desktop-packages.sh
. "$REPO/scripts/desktop-packages.sh"
log() { printf '[images] %s\n' "$*" >&2; }

ensure_packages images mmdebstrap jq || true
NODE=$(command -v node)
[ -x "$REPO/apps/worker/dist/main.js" ] || [ -f "$REPO/apps/worker/dist/main.js" ] ||
  { log "apps/worker is not built; run the project's build first"; exit 1; }
mkdir -p "$CACHE/layers"
# Layers are written under a temporary name and renamed when whole: a build killed half-way leaves no layer
# a later run would take for a good one.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/lazyboy-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------------------------------- 1. the desktop
BASE_PACKAGES=("${DESKTOP_PACKAGES[@]}" ca-certificates dbus)
base_key=$( (cat "$0" "$HERE/oci-layer.sh" "$REPO/scripts/desktop-packages.sh"; sha256sum "$NODE" | cut -d' ' -f1) | sha256sum | cut -c1-16)
base=$CACHE/layers/worker-desktop-$base_key.tar.gz
if [ ! -f "$base" ]; then
  log "making the desktop layer (Debian bookworm and ${#BASE_PACKAGES[@]} packages)"
  started=$(date +%s)
  # The machine's own apt sources (whatever mirror it is configured for), and its apt cache: packages the
  # host already downloaded are not fetched again.
  sources=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sources+=("$f")
  done
  [ ${#sources[@]} -gt 0 ] || { log "no apt sources on this machine"; exit 1; }
  mmdebstrap --variant=minbase --format=directory --quiet \
    --include="$(IFS=,; echo "${BASE_PACKAGES[*]}")" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --setup-hook='mkdir -p "$1/var/cache/apt/archives"; cp -l /var/cache/apt/archives/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true' \
    --customize-hook="cp '$NODE' \"\$1/usr/local/bin/node\"" \
    --customize-hook='chroot "$1" useradd --uid 1000 --user-group --create-home --shell /bin/bash lazyboy' \
    --customize-hook='chroot "$1" dbus-uuidgen --ensure=/etc/machine-id' \
    --customize-hook='mkdir -p "$1/var/lib/lazyboy/home" && chown 1000:1000 "$1/var/lib/lazyboy/home"' \
    --customize-hook='rm -rf "$1/var/cache/apt/archives"/*.deb "$1/var/lib/apt/lists"/*' \
    bookworm "$WORK/desktop" "${sources[@]}"
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
    "LAZYBOY_COMPUTER_HOME=/var/lib/lazyboy/home"
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
  # Older archives of the worker are of no use once a newer one exists; their base layer stays cached.
  find "$CACHE" -maxdepth 1 -name 'worker-*.oci.tar' ! -name "worker-$tag.oci.tar" -mmin +60 -delete
fi
echo "$out $ref"
