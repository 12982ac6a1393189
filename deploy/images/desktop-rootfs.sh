#!/usr/bin/env bash
# desktop-rootfs.sh DIR: the worker image's lower layer (rootfs.sh) with the desktop packages of
# scripts/desktop-packages.sh, a machine id (dbus and the desktop's programs want one) and
# /var/lib/lazyboy/computer, where a pod mounts the computer's volume.
# The hooks are scripts mmdebstrap runs itself, with the new root as $1: nothing to expand here.
# shellcheck disable=SC2016
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/desktop-packages.sh
. "$HERE/../../scripts/desktop-packages.sh"
exec bash "$HERE/rootfs.sh" "$1" "$(IFS=,; echo "${DESKTOP_PACKAGES[*]}"),ca-certificates,dbus" \
  --customize-hook='chroot "$1" dbus-uuidgen --ensure=/etc/machine-id' \
  --customize-hook='mkdir -p "$1/var/lib/lazyboy/computer" && chown 1000:1000 "$1/var/lib/lazyboy/computer"'
