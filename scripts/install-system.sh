#!/usr/bin/env bash
# Installs the Debian packages the local stack and the tests need, and builds pgvector from Debian's
# source package (bookworm does not package it). Idempotent: a second run on a ready machine only checks.
# Runs as root on Debian 12; reads the mirror from the machine's own apt configuration.
set -euo pipefail

PACKAGES=(postgresql-15 postgresql-server-dev-15 redis-server dpkg-dev make gcc procps iproute2 ca-certificates)
PGVECTOR_VERSION=0.8.0-1
PG_LIB=/usr/lib/postgresql/15/lib
# shellcheck source=apt-packages.sh
. "$(dirname "$0")/apt-packages.sh"

log() { printf '[install-system] %s\n' "$*" >&2; }

if ensure_packages install-system "${PACKAGES[@]}"; then
  # The Debian packages start their own cluster and server; LazyBoy runs its own as plain processes.
  service postgresql stop >/dev/null 2>&1 || true
  service redis-server stop >/dev/null 2>&1 || true
fi

if [ ! -f "$PG_LIB/vector.so" ]; then
  log "building pgvector $PGVECTOR_VERSION from Debian's source package"
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  if [ -z "$mirror" ]; then
    mirror=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' \
      /etc/apt/sources.list 2>/dev/null || true)
  fi
  [ -n "$mirror" ] || { log "no Debian mirror found in the apt configuration"; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$work/sources.list"
  apt_src=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache")
  apt-get "${apt_src[@]}" update -qq
  (cd "$work" && apt-get "${apt_src[@]}" source --download-only "pgvector=$PGVECTOR_VERSION" >/dev/null)
  (cd "$work" && dpkg-source -x pgvector_*.dsc src >/dev/null)
  make -C "$work/src" PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config OPTFLAGS="" >/dev/null
  make -C "$work/src" PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install >/dev/null
fi
log "system packages ready"
