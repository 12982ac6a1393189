#!/usr/bin/env bash
# Installs the Debian packages a computer's desktop needs when it runs as plain processes (no container):
# Xvfb, the xfwm4 window manager and XFCE pieces, Chromium, x11vnc for viewers, xdotool, AT-SPI with its Python
# bindings, ImageMagick for screenshots, dbus-launch, bubblewrap for the agent's shell, and unshare/nsenter/ip
# for each screen's network island.
# Idempotent: a second run on a ready machine only checks. Runs as root on Debian 12.
set -euo pipefail

PACKAGES=(
  xvfb xauth x11-utils dbus-x11 xfwm4 xfce4-panel xfdesktop4 xfce4-terminal xfce4-session xfce4-settings zenity
  chromium x11vnc xdotool imagemagick
  at-spi2-core python3-pyatspi gir1.2-atspi-2.0 python3-gi
  bubblewrap fonts-noto-cjk procps util-linux iproute2 passwd curl
)
# shellcheck source=apt-packages.sh
. "$(dirname "$0")/apt-packages.sh"

log() { printf '[install-desktop] %s\n' "$*" >&2; }

ensure_packages install-desktop "${PACKAGES[@]}" || true

for need in /usr/bin/Xvfb /usr/bin/chromium /usr/bin/x11vnc /usr/bin/xfwm4 /usr/bin/dbus-launch /usr/bin/xprop \
  /usr/bin/import /usr/bin/bwrap /usr/bin/unshare /usr/bin/nsenter /usr/sbin/ip; do
  [ -e "$need" ] || { log "missing $need after install"; exit 1; }
done
log "desktop packages ready"
