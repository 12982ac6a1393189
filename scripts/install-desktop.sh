#!/usr/bin/env bash
# Installs the Debian packages a computer's desktop needs when it runs as plain processes (no container);
# the list is desktop-packages.sh, shared with the worker image.
# Idempotent: a second run on a ready machine only checks. Runs as root on Debian 12.
set -euo pipefail

# shellcheck source=desktop-packages.sh
. "$(dirname "$0")/desktop-packages.sh"
# shellcheck source=apt-packages.sh
. "$(dirname "$0")/apt-packages.sh"

log() { printf '[install-desktop] %s\n' "$*" >&2; }

ensure_packages install-desktop "${DESKTOP_PACKAGES[@]}" || true

for need in /usr/bin/Xvfb /usr/bin/chromium /usr/bin/x11vnc /usr/bin/xfwm4 /usr/bin/dbus-launch /usr/bin/xprop \
  /usr/bin/import /usr/bin/bwrap /usr/bin/unshare /usr/bin/nsenter /usr/sbin/ip; do
  [ -e "$need" ] || { log "missing $need after install"; exit 1; }
done
log "desktop packages ready"
