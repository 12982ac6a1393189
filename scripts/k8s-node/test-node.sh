#!/usr/bin/env bash
# test-node.sh: the Kubernetes the tests run against. Builds the worker image (cached by its inputs), brings
# the one-node cluster up unless it is up, and loads the image into it once. Serialised by a lock, so test
# processes asking at once share one node. Prints one line: KUBECONFIG IMAGE_REF STARTED, STARTED being 1
# when this call started the node (whoever started it stops it: node-down.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NODE_DIR=${LAZYBOY_K8S_NODE_DIR:-/var/tmp/lazyboy-k8s-node}
R=$NODE_DIR/run
mkdir -p "$NODE_DIR"
exec 9>"$NODE_DIR/test-node.lock"
flock 9

read -r archive ref < <(bash "$HERE/../../deploy/images/build.sh" worker)
started=1
H=$(cat "$R/pid/holder" 2>/dev/null || true)
if [ -n "$H" ] && kill -0 "$H" 2>/dev/null; then started=0; fi
# The node outlives this script: its daemons must not inherit the lock (fd 9), or the next caller waits forever.
kubeconfig=$(bash "$HERE/node-up.sh" 9>&-)
# containerd's content store survives node-down.sh: an image is imported once per content hash.
stamp=$R/ctrd/imported/$(basename "$archive")
if [ ! -f "$stamp" ]; then
  bash "$HERE/import-image.sh" "$archive"
  mkdir -p "$(dirname "$stamp")"
  touch "$stamp"
fi
echo "$kubeconfig $ref $started"
