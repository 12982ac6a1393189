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
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  debian_source trixie "pgvector=$PGVECTOR_VERSION" "$work"
  (cd "$work" && dpkg-source -x pgvector_*.dsc src >/dev/null)
  make -C "$work/src" PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config OPTFLAGS="" >/dev/null
  make -C "$work/src" PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install >/dev/null
fi
log "system packages ready"
