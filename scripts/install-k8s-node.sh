#!/usr/bin/env bash
# Builds the Kubernetes binaries a one-node cluster needs (kubelet, kube-apiserver, kube-controller-manager,
# kube-scheduler, kube-proxy) from Debian bookworm's `kubernetes` source package, and installs what runs
# them (etcd, containerd, runc, the CNI plugins, mmdebstrap). Debian packages no kubelet or apiserver.
#
# The build takes 7 to 12 minutes on 2 cores, so its output is kept outside any checkout, in
# $LAZYBOY_CACHE_DIR/k8s/<sha256 of the source tarball>-reflect2-<version>/bin (default /var/cache/lazyboy): a second run, from
# any clone, only checks. Prints the binaries' directory on stdout. Runs as root on Debian 12; reads the
# mirror from the machine's own apt configuration.
set -euo pipefail

PACKAGES=(golang-go rsync etcd-server etcd-client containerd runc containernetworking-plugins catatonit mmdebstrap jq bc curl
  iptables conntrack dpkg-dev golang-github-modern-go-reflect2-dev)
KUBE_VERSION=1.20.2
BINARIES=(kubelet kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
CACHE=${LAZYBOY_CACHE_DIR:-/var/cache/lazyboy}/k8s
# shellcheck source=apt-packages.sh
. "$(dirname "$0")/apt-packages.sh"

log() { printf '[install-k8s-node] %s\n' "$*" >&2; }

if ensure_packages install-k8s-node "${PACKAGES[@]}"; then
  # The packaged containerd starts its own daemon; the node runs one of its own in a private namespace.
  service containerd stop >/dev/null 2>&1 || true
fi

mkdir -p "$CACHE"
# The source tarball's hash (and the reflect2 that replaces the vendored one, below) names the cache; the key
# is recorded after the first build so that a warm run needs no network at all.
reflect2_version=$(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev)
if [ -f "$CACHE/current" ]; then
  current=$(cat "$CACHE/current")
  ok=1
  [[ $current == *-reflect2-$reflect2_version ]] || ok=0
  for b in "${BINARIES[@]}"; do [ -x "$CACHE/$current/bin/$b" ] || ok=0; done
  if [ $ok = 1 ]; then
    echo "$CACHE/$current/bin"
    exit 0
  fi
fi

work=$(mktemp -d /var/tmp/lazyboy-k8s-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
log "fetching Debian's kubernetes $KUBE_VERSION source package"
debian_source bookworm kubernetes "$work"
orig=$(ls "$work"/kubernetes_*.orig.tar.* | head -1)
# The vendored reflect2 (1.0.1) reads Go's map internals as they were before Go 1.18: built with bookworm's Go
# 1.19, the API server dies with SIGSEGV in mapiterinit on its first watch of a map-valued field. Debian's
# reflect2 1.0.2 replaces it; its version is part of the cache key.
REFLECT2=/usr/share/gocode/src/github.com/modern-go/reflect2
key=$(sha256sum "$orig" | cut -d' ' -f1)-reflect2-$reflect2_version
out="$CACHE/$key"
if [ ! -x "$out/bin/kube-proxy" ]; then
  log "building ${BINARIES[*]} (7 to 12 minutes on 2 cores; cached in $out)"
  # The keyring of Debian's uploaders is not installed; apt checked the files against the signed Sources index.
  (cd "$work" && dpkg-source --no-check -x kubernetes_*.dsc src >/dev/null 2>&1)
  rm -rf "$work/src/vendor/github.com/modern-go/reflect2"
  cp -r "$REFLECT2" "$work/src/vendor/github.com/modern-go/reflect2"
  whats=()
  for b in "${BINARIES[@]}"; do whats+=("cmd/$b"); done
  (cd "$work/src" && HOME="$work/home" GOFLAGS=-mod=vendor KUBE_GIT_VERSION="v$KUBE_VERSION" KUBE_GIT_TREE_STATE=clean \
    make WHAT="${whats[*]}" >"$work/build.log" 2>&1) || { tail -40 "$work/build.log" >&2; log "the build failed"; exit 1; }
  mkdir -p "$out.partial/bin"
  for b in "${BINARIES[@]}"; do cp "$work/src/_output/bin/$b" "$out.partial/bin/"; done
  rm -rf "$out" && mv "$out.partial" "$out"
fi
echo "$key" >"$CACHE/current"
log "kubernetes $KUBE_VERSION binaries ready in $out/bin"
echo "$out/bin"
