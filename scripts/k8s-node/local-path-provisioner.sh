#!/usr/bin/env bash
# The test node's storage: what k3s's local-path provisioner is on a home server, in a loop of curl and jq.
# Every pending claim of the `local-path` StorageClass gets a hostPath volume of its own under
# $R/volumes (made world-writable, as local-path makes them, so that a pod's non-root user can use it);
# a volume whose claim was deleted goes, with its directory. node-up.sh starts it; it stops with the node.
set -uo pipefail
R=$1
API=https://10.99.0.1:6443
TOKEN=$(cat "$R/pki/admin.token")
api() { curl -skf -m 10 -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' "$@"; }
mkdir -p "$R/volumes"
while sleep 0.5; do
  api "$API/api/v1/persistentvolumeclaims" |
    jq -c '.items[]? | select(.spec.storageClassName == "local-path" and .status.phase == "Pending" and (.spec.volumeName // "") == "")' |
    while read -r claim; do
      ns=$(jq -r .metadata.namespace <<<"$claim")
      name=$(jq -r .metadata.name <<<"$claim")
      uid=$(jq -r .metadata.uid <<<"$claim")
      dir=$R/volumes/$ns-$name-$uid
      mkdir -p "$dir" && chmod 0777 "$dir"
      jq -c --arg dir "$dir" --arg pv "pv-$uid" '{
        apiVersion: "v1", kind: "PersistentVolume",
        metadata: {name: $pv, labels: {"lazyboy.test/local-path": "true"}},
        spec: {capacity: {storage: .spec.resources.requests.storage}, accessModes: .spec.accessModes,
          persistentVolumeReclaimPolicy: "Retain", storageClassName: "local-path",
          claimRef: {namespace: .metadata.namespace, name: .metadata.name, uid: .metadata.uid},
          hostPath: {path: $dir, type: "Directory"}}}' <<<"$claim" |
        api -X POST "$API/api/v1/persistentvolumes" -d @- >/dev/null || true
    done
  api "$API/api/v1/persistentvolumes?labelSelector=lazyboy.test/local-path" |
    jq -r '.items[]? | select(.status.phase == "Released") | "\(.metadata.name) \(.spec.hostPath.path)"' |
    while read -r pv dir; do
      api -X DELETE "$API/api/v1/persistentvolumes/$pv" >/dev/null && case $dir in "$R/volumes/"*) rm -rf "$dir" ;; esac
    done
done
