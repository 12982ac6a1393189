#!/usr/bin/env bash
# oci-image.sh ROOTFS OUT.tar NAME:TAG [CMD…]: an OCI image archive of one layer, made with tar, sha256sum and
# jq alone (no registry, no Docker engine). `ctr images import` loads it. Owners are kept numeric and the
# entries sorted, so one root filesystem always gives the same layer digest.
set -euo pipefail
ROOTFS=$1
OUT=$2
REF=$3
shift 3
W=$(mktemp -d "${TMPDIR:-/var/tmp}/lazyboy-oci.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/blobs/sha256"
tar --numeric-owner --sort=name --xattrs --xattrs-include='security.capability' -C "$ROOTFS" -cf "$W/layer.tar" .
DIFF=$(sha256sum "$W/layer.tar" | cut -d' ' -f1)
gzip -n -1 "$W/layer.tar"
LSHA=$(sha256sum "$W/layer.tar.gz" | cut -d' ' -f1)
LSIZE=$(stat -c %s "$W/layer.tar.gz")
mv "$W/layer.tar.gz" "$W/blobs/sha256/$LSHA"
CMDJSON=$(printf '%s\n' "${@:-/bin/sh}" | jq -R . | jq -sc .)
jq -nc --arg diff "sha256:$DIFF" --argjson cmd "$CMDJSON" '{
  architecture: "amd64", os: "linux",
  config: {Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"], Cmd: $cmd, WorkingDir: "/"},
  rootfs: {type: "layers", diff_ids: [$diff]}}' >"$W/config.json"
CSHA=$(sha256sum "$W/config.json" | cut -d' ' -f1)
CSIZE=$(stat -c %s "$W/config.json")
mv "$W/config.json" "$W/blobs/sha256/$CSHA"
jq -nc --arg c "sha256:$CSHA" --argjson cs "$CSIZE" --arg l "sha256:$LSHA" --argjson ls "$LSIZE" '{
  schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
  config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
  layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $l, size: $ls}]}' >"$W/manifest.json"
MSHA=$(sha256sum "$W/manifest.json" | cut -d' ' -f1)
MSIZE=$(stat -c %s "$W/manifest.json")
mv "$W/manifest.json" "$W/blobs/sha256/$MSHA"
jq -nc --arg m "sha256:$MSHA" --argjson ms "$MSIZE" --arg ref "$REF" '{
  schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
  manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
    annotations: {"org.opencontainers.image.ref.name": $ref, "io.containerd.image.name": $ref}}]}' >"$W/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$W/oci-layout"
tar -C "$W" -cf "$OUT" oci-layout index.json blobs
echo "$REF: manifest sha256:$MSHA, layer $LSIZE bytes -> $OUT"
