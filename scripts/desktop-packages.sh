# Sourced: the Debian packages a computer's desktop needs, in one place for the host install
# (install-desktop.sh) and the worker image (deploy/images/build.sh): Xvfb, the xfwm4 window manager and
# XFCE pieces, Chromium, x11vnc for viewers, xdotool, AT-SPI with its Python bindings, ImageMagick for
# screenshots, dbus-launch, bubblewrap for the agent's shell, and unshare/nsenter/ip for each screen's
# network island.
# shellcheck disable=SC2034
DESKTOP_PACKAGES=(
  xvfb xauth x11-utils dbus-x11 xfwm4 xfce4-panel xfdesktop4 xfce4-terminal xfce4-session xfce4-settings zenity
  chromium x11vnc xdotool imagemagick
  at-spi2-core python3-pyatspi gir1.2-atspi-2.0 python3-gi
  bubblewrap fonts-noto-cjk procps util-linux iproute2 passwd curl
)
