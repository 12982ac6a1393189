#!/usr/bin/env bash
# pgvector.sh: pgvector for the postgres image, as the files `make install` puts in place (the extension's
# library and its SQL), under a directory of its own; prints that directory. Debian bookworm packages no
# pgvector: it is built from trixie's source package (the one scripts/install-system.sh builds for the
# host), against bookworm's PostgreSQL 15, with portable optimisation flags (OPTFLAGS empty: no
# -march=native, the image runs on other CPUs than this one). Cached under $LAZYBOY_CACHE_DIR/images/pgvector
# by the version, the server headers' and the compiler's versions and this script, so a warm run needs no
# network and gives the same bytes (the image's layer digest depends on them). ~20 s cold.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PGVECTOR_VERSION=0.8.0-1
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
CACHE=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/images/pgvector
# shellcheck source=../../scripts/apt-packages.sh
. "$HERE/../../scripts/apt-packages.sh"
log() { printf '[images] %s\n' "$*" >&2; }

ensure_packages images postgresql-server-dev-15 gcc make dpkg-dev || true
key=$( (echo "$PGVECTOR_VERSION"; "$PG_CONFIG" --version; gcc --version | head -1; cat "$0") | sha256sum | cut -c1-16)
out=$CACHE/$PGVECTOR_VERSION-$key
if [ ! -f "$out/usr/lib/postgresql/15/lib/vector.so" ]; then
  log "building pgvector $PGVECTOR_VERSION from Debian's source package"
  mkdir -p "$CACHE"
  work=$(mktemp -d "$CACHE/.build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  debian_source trixie "pgvector=$PGVECTOR_VERSION" "$work"
  # The keyring of Debian's uploaders is not installed; apt checked the files against the signed Sources index.
  (cd "$work" && dpkg-source --no-check -x pgvector_*.dsc src >/dev/null 2>&1)
  # with_llvm=no: no JIT bitcode (the image leaves LLVM out, postgres-rootfs.sh).
  make -C "$work/src" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" with_llvm=no >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log" >&2; log "the pgvector build failed"; exit 1; }
  make -C "$work/src" PG_CONFIG="$PG_CONFIG" with_llvm=no install DESTDIR="$work/stage" >>"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log" >&2; log "installing pgvector failed"; exit 1; }
  # The headers are for building other extensions against pgvector: of no use in the image.
  rm -rf "$work/stage/usr/include"
  # Renamed into place when whole: a build killed half-way leaves nothing a later run would take.
  rm -rf "$out"
  mv "$work/stage" "$out"
  # Builds of other keys (an older pgvector, older headers) are of no use once this one exists.
  find "$CACHE" -mindepth 1 -maxdepth 1 -type d ! -name "$(basename "$out")" ! -name '.build.*' -exec rm -rf {} +
fi
echo "$out"
