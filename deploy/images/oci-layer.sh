#!/usr/bin/env bash
# oci-layer.sh DIR OUT.tar.gz [--zero-mtime]: one image layer of a directory, for oci-image.sh. Owners are
# kept numeric, the entries sorted and the times of gzip left out, so one directory always gives the same
# digest; --zero-mtime also sets every file's time to 0, for a directory that is made afresh each time from
# the same content (the app's build). Writes the uncompressed tar's digest (the layer's diff id) beside it,
# as OUT.tar.gz.diffid.
set -euo pipefail
DIR=$1
OUT=$2
partial=$OUT.partial
times=()
[ "${3:-}" = --zero-mtime ] && times=(--mtime=@0)
tar "${times[@]}" --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --numeric-owner --sort=name --xattrs --xattrs-include='security.capability' -C "$DIR" -cf - . |
  tee >(sha256sum | cut -d' ' -f1 >"$partial.diffid") | gzip -n -1 >"$partial"
# The digest comes from a process substitution: wait until it is written.
for _ in $(seq 1 100); do [ -s "$partial.diffid" ] && break; sleep 0.1; done
[ -s "$partial.diffid" ] || { echo "oci-layer: no digest for $DIR" >&2; exit 1; }
mv "$partial.diffid" "$OUT.diffid"
mv "$partial" "$OUT"
