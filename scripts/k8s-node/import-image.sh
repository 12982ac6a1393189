#!/usr/bin/env bash
# import-image.sh ARCHIVE…: loads OCI image archives into the test node's containerd (a node that is up;
# node-up.sh imports the ones given to it when it starts one).
set -euo pipefail
NODE_DIR=${LAZYBOY_K8S_NODE_DIR:-/var/tmp/lazyboy-k8s-node}
R=$NODE_DIR/run
H=$(cat "$R/pid/holder" 2>/dev/null || true)
[ -n "$H" ] && kill -0 "$H" 2>/dev/null || { echo "[k8s-node] the node is not up (scripts/k8s-node/node-up.sh)" >&2; exit 1; }
for image in "$@"; do
  nsenter -t "$H" -n -m -- ctr --address "$R/ctrd/containerd.sock" -n k8s.io images import "$image" >/dev/null
done
