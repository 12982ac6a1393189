#!/usr/bin/env bash
# rootfs.sh DIR PACKAGES [MMDEBSTRAP_OPTION…]: the lower layer of every LazyBoy image, as a directory: Debian
# bookworm (mmdebstrap, minbase) with PACKAGES (comma-separated), the Node.js binary $NODE (the host's, the
# one the project is built and tested with; NODE set but empty: none, for the postgres and redis images)
# and the user `lazyboy` (uid 1000) the project's own images run as. Further
# options (an image's own hooks) go to mmdebstrap. The packages come from the machine's own apt sources,
# and from its apt cache when it has them.
# The hooks are scripts mmdebstrap runs itself, with the new root as $1: nothing to expand here.
# shellcheck disable=SC2016
set -euo pipefail
DIR=$1
PACKAGES=$2
shift 2
NODE=${NODE-$(command -v node)}
node_hook=()
[ -z "$NODE" ] || node_hook=(--customize-hook="cp '$NODE' \"\$1/usr/local/bin/node\"")
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || { echo "[images] no apt sources on this machine" >&2; exit 1; }
# The merged-usr hook makes /bin and the others links into /usr itself: without it bookworm's minbase
# installs the usrmerge package to do so, and Perl with it (46 MB).
mmdebstrap --variant=minbase --format=directory --quiet \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --include="$PACKAGES" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --setup-hook='mkdir -p "$1/var/cache/apt/archives"; cp -l /var/cache/apt/archives/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true' \
  "${node_hook[@]}" \
  --customize-hook='chroot "$1" useradd --uid 1000 --user-group --create-home --shell /bin/bash lazyboy' \
  "$@" \
  --customize-hook='rm -rf "$1/var/cache/apt/archives"/*.deb "$1/var/lib/apt/lists"/*' \
  bookworm "$DIR" "${sources[@]}"
