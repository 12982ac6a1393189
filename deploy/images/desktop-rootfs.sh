#!/usr/bin/env bash
# desktop-rootfs.sh DIR: the worker image's lower layer as a directory: Debian bookworm (mmdebstrap, minbase)
# with the desktop packages of scripts/desktop-packages.sh, the Node.js binary $NODE (the host's), and the
# computer's user `lazyboy` (uid 1000) with /var/lib/lazyboy/computer, where a pod mounts the computer's
# volume. The packages come from the machine's own apt sources, and from its apt cache when it has them.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$1
NODE=${NODE:-$(command -v node)}
# shellcheck source=../../scripts/desktop-packages.sh
. "$HERE/../../scripts/desktop-packages.sh"
PACKAGES=("${DESKTOP_PACKAGES[@]}" ca-certificates dbus)
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || { echo "[images] no apt sources on this machine" >&2; exit 1; }
mmdebstrap --variant=minbase --format=directory --quiet \
  --include="$(IFS=,; echo "${PACKAGES[*]}")" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --setup-hook='mkdir -p "$1/var/cache/apt/archives"; cp -l /var/cache/apt/archives/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true' \
  --customize-hook="cp '$NODE' \"\$1/usr/local/bin/node\"" \
  --customize-hook='chroot "$1" useradd --uid 1000 --user-group --create-home --shell /bin/bash lazyboy' \
  --customize-hook='chroot "$1" dbus-uuidgen --ensure=/etc/machine-id' \
  --customize-hook='mkdir -p "$1/var/lib/lazyboy/computer" && chown 1000:1000 "$1/var/lib/lazyboy/computer"' \
  --customize-hook='rm -rf "$1/var/cache/apt/archives"/*.deb "$1/var/lib/apt/lists"/*' \
  bookworm "$DIR" "${sources[@]}"
