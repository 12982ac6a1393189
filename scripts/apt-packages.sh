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

# Downloads Debian's source package <package>[=<version>] of <suite> from that mirror into <dir> (which
# exists), with apt state of its own under <dir>/.apt: the machine's apt lists and sources stay as they are.
debian_source() {
  local suite=$1 package=$2 dir=$3 mirror
  mirror=$(debian_mirror) || { printf 'no Debian mirror found in the apt configuration\n' >&2; return 1; }
  # apt's download user must reach it.
  chmod 755 "$dir"
  mkdir -p "$dir/.apt/lists/partial" "$dir/.apt/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$dir/.apt/sources.list"
  local apt_src=(-o APT::Sandbox::User=root -o Dir::Etc::SourceList="$dir/.apt/sources.list"
    -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$dir/.apt/lists" -o Dir::Cache="$dir/.apt/cache")
  apt-get "${apt_src[@]}" update -qq
  (cd "$dir" && apt-get "${apt_src[@]}" source --download-only "$package" >/dev/null)
}
