#!/usr/bin/env bash
# postgres-rootfs.sh DIR: the lower layer of the postgres image (rootfs.sh, without Node): bookworm's
# PostgreSQL 15 and its user postgres, with uid and gid 999 as in the official postgres images, so that one
# pod securityContext (the chart's) fits this image and theirs. No cluster is made here: the entrypoint
# (postgres-entrypoint.sh, in the upper layer) makes one on the pod's volume.
#
# Left out: LLVM and the JIT's bitcode (136 MB; the image runs with jit=off, and the API's queries are
# not the long analytical ones JIT is for), the translations, and the snakeoil TLS key ssl-cert makes (a
# private key every copy of the image would share; the server runs without TLS inside the cluster).
# The hooks are scripts mmdebstrap runs itself, with the new root as $1: nothing to expand here. They name
# /run, not /var/run: that is a link to /run, which from outside the new root is the host's. mmdebstrap
# empties /run at the end unless told not to: the socket directory must stay (the server, not root, cannot
# make it when no volume is mounted there).
# shellcheck disable=SC2016
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# The user exists before the packages' scripts run (adduser --system then leaves it as it is); useradd is
# not installed yet at that point, so the entries are written as base-passwd writes its own (passwd's
# scripts add the shadow entries later). Debian's package would otherwise make a cluster in
# /var/lib/postgresql/15/main at install time.
NODE='' exec bash "$HERE/rootfs.sh" "$1" postgresql-15 \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/libLLVM-*' \
  --dpkgopt='path-exclude=/usr/lib/postgresql/15/lib/bitcode/*' \
  --dpkgopt='path-exclude=/usr/lib/postgresql/15/lib/llvmjit*' \
  --essential-hook='echo "postgres:x:999:999:PostgreSQL administrator:/var/lib/postgresql:/bin/bash" >>"$1/etc/passwd"' \
  --essential-hook='echo "postgres:x:999:" >>"$1/etc/group"' \
  --essential-hook='mkdir -p "$1/etc/postgresql-common/createcluster.d" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.d/lazyboy.conf"' \
  --skip=cleanup/run \
  --customize-hook='rm -f "$1/etc/ssl/private/ssl-cert-snakeoil.key" "$1/etc/ssl/certs/ssl-cert-snakeoil.pem" "$1/run/adduser"' \
  --customize-hook='mkdir -p "$1/var/lib/postgresql/data" "$1/run/postgresql" "$1/docker-entrypoint-initdb.d"' \
  --customize-hook='chown 999:999 "$1/var/lib/postgresql" "$1/var/lib/postgresql/data" "$1/run/postgresql" && chmod 2775 "$1/run/postgresql"'
