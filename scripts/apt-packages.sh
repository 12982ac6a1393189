# Sourced by the install scripts: installs the Debian packages given that are not installed yet.
# Usage: ensure_packages <log tag> <package>…   (as root; apt-get update only when something is missing)

ensure_packages() {
  local tag=$1
  shift
  if [ "$(id -u)" -ne 0 ]; then
    printf '[%s] must run as root (it installs Debian packages)\n' "$tag" >&2
    exit 1
  fi
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -gt 0 ] || return 1
  printf '[%s] installing %s\n' "$tag" "${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 -y --no-install-recommends install "${missing[@]}" >/dev/null
}
