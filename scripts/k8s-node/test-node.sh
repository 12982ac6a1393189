#!/usr/bin/env bash
# test-node.sh: the Kubernetes the tests run against. Builds the images (each cached by its inputs: the
# worker, which the driver's suites start, and the api, web, postgres and redis images the chart's install
# test runs), brings the one-node cluster up unless it is up, and loads each image into it once. Serialised
# by a lock, so test processes asking at once share one node. Prints one line: KUBECONFIG IMAGE_REF STARTED,
# IMAGE_REF being the worker image's name and STARTED 1 when this call started the node (whoever started it
# stops it: node-down.sh). The names of all five images go to $LAZYBOY_K8S_NODE_DIR/images, one
# `<image> <name>` a line (the line above stays three fields: `./lazyboy` reads it as such).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NODE_DIR=${LAZYBOY_K8S_NODE_DIR:-/var/tmp/lazyboy-k8s-node}
R=$NODE_DIR/run
IMAGES=(worker api web postgres redis)
mkdir -p "$NODE_DIR"
exec 9>"$NODE_DIR/test-node.lock"
flock 9

archives=()
names=()
for image in "${IMAGES[@]}"; do
  # Through a variable, not a process substitution: a failed build must fail this script.
  built=$(bash "$HERE/../../deploy/images/build.sh" "$image")
  read -r archive ref <<<"$built"
  archives+=("$archive")
  names+=("$image $ref")
  [ "$image" != worker ] || worker_ref=$ref
done
started=1
H=$(cat "$R/pid/holder" 2>/dev/null || true)
if [ -n "$H" ] && kill -0 "$H" 2>/dev/null; then started=0; fi
# The node outlives this script: its daemons must not inherit the lock (fd 9), or the next caller waits forever.
kubeconfig=$(bash "$HERE/node-up.sh" 9>&-)
# containerd's content store survives node-down.sh: an image is imported once per content hash.
for archive in "${archives[@]}"; do
  stamp=$R/ctrd/imported/$(basename "$archive")
  if [ ! -f "$stamp" ]; then
    bash "$HERE/import-image.sh" "$archive"
    mkdir -p "$(dirname "$stamp")"
    touch "$stamp"
  fi
done
printf '%s\n' "${names[@]}" >"$NODE_DIR/images.partial"
mv "$NODE_DIR/images.partial" "$NODE_DIR/images"
echo "$kubeconfig $worker_ref $started"
