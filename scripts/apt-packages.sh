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

# Prints the Debian mirror the machine's own apt configuration names (deb822 sources first, then a one-line
# sources.list), for apt runs with a private source list (another suite's source packages).
debian_mirror() {
  local mirror
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  if [ -z "$mirror" ]; then
    mirror=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' \
      /etc/apt/sources.list 2>/dev/null || true)
  fi
  [ -n "$mirror" ] || return 1
  echo "$mirror"
}
