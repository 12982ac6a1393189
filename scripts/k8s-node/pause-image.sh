#!/usr/bin/env bash
# The pod sandbox ("pause") image of the test node: Debian's static catatonit in pause mode (-P), one file.
# Built once per catatonit version into the cache; prints the OCI archive's path.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
IMAGES=$HERE/../../deploy/images
CACHE=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/k8s/images
version=$(dpkg-query -W -f='${Version}' catatonit 2>/dev/null || true)
[ -n "$version" ] || { echo "[k8s-node] catatonit is not installed (scripts/install-k8s-node.sh installs it)" >&2; exit 1; }
out=$CACHE/pause-catatonit-$version.oci.tar
if [ ! -f "$out" ]; then
  mkdir -p "$CACHE"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/root"
  cp /usr/bin/catatonit "$work/root/catatonit"
  bash "$IMAGES/oci-layer.sh" "$work/root" "$work/layer.tar.gz"
  echo '{"Cmd": ["/catatonit", "-P"], "WorkingDir": "/"}' >"$work/config.json"
  bash "$IMAGES/oci-image.sh" "$out.partial" localhost/lazyboy/pause:1 "$work/config.json" "$work/layer.tar.gz" 2>/dev/null
  mv "$out.partial" "$out"
fi
echo "$out"
