#!/usr/bin/env bash
# server-rootfs.sh DIR: the lower layer of the API and web images (rootfs.sh), no desktop: beside Node only
# CA certificates (the system's store, for NODE_EXTRA_CA_CERTS and --use-openssl-ca) and tini as PID 1: Node
# there would reap no orphaned child and ignore every signal it has no handler for. No program in them
# speaks anything but English: the translations (30 MB) are left out.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/rootfs.sh" "$1" ca-certificates,tini --dpkgopt='path-exclude=/usr/share/locale/*'
