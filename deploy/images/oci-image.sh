#!/usr/bin/env bash
# oci-image.sh OUT.tar NAME:TAG CONFIG.json LAYER.tar.gz…: an OCI image archive, made with sha256sum and jq
# alone (no registry, no Docker engine); `ctr images import`, `k3s ctr images import` and `podman load`
# accept it. CONFIG.json holds the image config's `config` object (Env, Cmd, User, WorkingDir…); each layer
# comes from oci-layer.sh (its .diffid beside it), lowest first.
set -euo pipefail
OUT=$1
REF=$2
CONFIG=$3
shift 3
W=$(mktemp -d "${TMPDIR:-/var/tmp}/lazyboy-oci.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/blobs/sha256"
layers='[]'
diffs='[]'
paths='[]'
for layer in "$@"; do
  sha=$(sha256sum "$layer" | cut -d' ' -f1)
  size=$(stat -c %s "$layer")
  ln "$layer" "$W/blobs/sha256/$sha" 2>/dev/null || cp "$layer" "$W/blobs/sha256/$sha"
  layers=$(jq -c --arg d "sha256:$sha" --argjson s "$size" \
    '. + [{mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $d, size: $s}]' <<<"$layers")
  diffs=$(jq -c --arg d "sha256:$(cat "$layer.diffid")" '. + [$d]' <<<"$diffs")
  paths=$(jq -c --arg p "blobs/sha256/$sha" '. + [$p]' <<<"$paths")
done
jq -c --argjson diffs "$diffs" '{architecture: "amd64", os: "linux", config: ., rootfs: {type: "layers", diff_ids: $diffs}}' \
  "$CONFIG" >"$W/config.json"
CSHA=$(sha256sum "$W/config.json" | cut -d' ' -f1)
CSIZE=$(stat -c %s "$W/config.json")
mv "$W/config.json" "$W/blobs/sha256/$CSHA"
jq -nc --arg c "sha256:$CSHA" --argjson cs "$CSIZE" --argjson layers "$layers" '{
  schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
  config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs}, layers: $layers}' >"$W/manifest.json"
MSHA=$(sha256sum "$W/manifest.json" | cut -d' ' -f1)
MSIZE=$(stat -c %s "$W/manifest.json")
mv "$W/manifest.json" "$W/blobs/sha256/$MSHA"
jq -nc --arg m "sha256:$MSHA" --argjson ms "$MSIZE" --arg ref "$REF" '{
  schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
  manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
    annotations: {"org.opencontainers.image.ref.name": $ref, "io.containerd.image.name": $ref}}]}' >"$W/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$W/oci-layout"
jq -nc --arg c "blobs/sha256/$CSHA" --arg ref "$REF" --argjson layers "$paths" \
  '[{Config: $c, RepoTags: [$ref], Layers: $layers}]' >"$W/manifest.json"
tar -C "$W" -cf "$OUT" oci-layout index.json manifest.json blobs
echo "$REF: manifest sha256:$MSHA -> $OUT" >&2
