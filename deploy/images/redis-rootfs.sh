#!/usr/bin/env bash
# redis-rootfs.sh DIR: the redis image, one layer (rootfs.sh, without Node): bookworm's redis-server and its
# user redis, with uid and gid 999 as in the official redis images, so that one pod securityContext (the
# chart's) fits this image and theirs; /data, where it keeps its append-only file, is that user's. Nothing
# of Debian's /etc/redis is used: whoever runs it passes the settings (the chart on standard input, so that
# the password is in no command line).
# The hooks are scripts mmdebstrap runs itself, with the new root as $1: nothing to expand here.
# shellcheck disable=SC2016
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# The user exists before the packages' scripts run (adduser --system then leaves it as it is); useradd is
# not installed yet at that point, so the entries are written as base-passwd writes its own.
NODE='' exec bash "$HERE/rootfs.sh" "$1" redis-server \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --essential-hook='echo "redis:x:999:999::/var/lib/redis:/usr/sbin/nologin" >>"$1/etc/passwd"' \
  --essential-hook='echo "redis:x:999:" >>"$1/etc/group"' \
  --customize-hook='mkdir -p "$1/data" && chown 999:999 "$1/data"'
