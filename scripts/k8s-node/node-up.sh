#!/usr/bin/env bash
# A real one-node Kubernetes for the cluster driver's tests: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet and kube-proxy v1.20 (built by scripts/install-k8s-node.sh), containerd + runc and
# the CNI bridge, all inside a private network + mount namespace with copy-on-write overlays over /etc,
# /var/lib, /var/log and /opt, so the host's files and firewall are untouched.
#
# The host reaches the node through one veth pair: the node is 10.99.0.1 (the API server on :6443), the host
# 10.99.0.254, with routes to the pods (10.88.0.0/24) and the services (10.0.0.0/24). The pair goes away with
# the namespace.
#
#   scripts/k8s-node/node-up.sh [image.oci.tar …]   prints the admin kubeconfig's path once the node is Ready
#   scripts/k8s-node/node-down.sh                   deletes every pod and stops it all
#
# LAZYBOY_K8S_NODE_DIR (default /var/tmp/lazyboy-k8s-node) holds its state; a node that is up is left alone.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
NODE_DIR=${LAZYBOY_K8S_NODE_DIR:-/var/tmp/lazyboy-k8s-node}
R=$NODE_DIR/run
NODE_NAME=lazyboy-node
NODE_IP=10.99.0.1
HOST_IP=10.99.0.254
HOST_IF=lbk8s0
KUBECONFIG_FILE=$R/admin.kubeconfig
log() { printf '[k8s-node] %s\n' "$*" >&2; }

# Pods reach the API server as any cluster's do (the API's pool driver in the chart's pods): through the
# `kubernetes` Service (10.0.0.1:443) with their service account's token, checking its certificate against
# the CA their token Secret carries (the controller manager's --root-ca-file, pki/ca.crt). So the API server
# serves a certificate that CA signed, and the Service has the API server as its endpoint (the API server
# keeps none itself: --endpoint-reconciler-type=none).
serving_cert() {
  # Made anew a day before it would expire (it lasts 30 days, as the CA does).
  [ -f "$R/pki/apiserver.crt" ] && openssl x509 -checkend 86400 -noout -in "$R/pki/apiserver.crt" >/dev/null && return 0
  openssl req -newkey rsa:2048 -nodes -keyout "$R/pki/apiserver.key" -subj /CN=kube-apiserver \
    -out "$R/pki/apiserver.csr" 2>/dev/null
  openssl x509 -req -in "$R/pki/apiserver.csr" -CA "$R/pki/ca.crt" -CAkey "$R/pki/ca.key" -CAcreateserial -days 30 \
    -extfile <(printf '%s\n' "subjectAltName=IP:$NODE_IP,IP:10.0.0.1,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost" \
      'extendedKeyUsage=serverAuth') -out "$R/pki/apiserver.crt.partial" 2>/dev/null
  chmod 600 "$R/pki/apiserver.key"
  mv "$R/pki/apiserver.crt.partial" "$R/pki/apiserver.crt"
}
kubernetes_endpoints() {
  # PUT creates Endpoints that are not there yet. Just after the API server turns ready its bootstrap may not
  # have made the namespace default yet (the PUT fails then, once in many starts): asked again for 30 s.
  local tries=0
  until curl -skf -m 10 -X PUT -H "Authorization: Bearer $(cat "$R/pki/admin.token")" -H 'content-type: application/json' \
    "https://$NODE_IP:6443/api/v1/namespaces/default/endpoints/kubernetes" -d '{"apiVersion": "v1", "kind": "Endpoints",
    "metadata": {"name": "kubernetes", "namespace": "default"},
    "subsets": [{"addresses": [{"ip": "'"$NODE_IP"'"}], "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]}' >/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || return 1
    sleep 0.3
  done
}

# The API server answers: nothing to do, but to give a node an older node-up.sh started what pods need to
# reach its API server. That one serves the certificate it made itself in $R/certs, and reloads the files
# there when they change (within a minute): the CA-signed one takes their place, no restart.
if [ -f "$R/pid/holder" ] && kill -0 "$(cat "$R/pid/holder")" 2>/dev/null &&
  curl -skf -m 2 -H "Authorization: Bearer $(cat "$R/pki/admin.token" 2>/dev/null)" "https://$NODE_IP:6443/readyz" >/dev/null 2>&1; then
  serving_cert
  if ! tr '\0' '\n' <"/proc/$(cat "$R/pid/apiserver")/cmdline" | grep -q '^--tls-cert-file=' &&
    ! cmp -s "$R/pki/apiserver.crt" "$R/certs/apiserver.crt"; then
    cp "$R/pki/apiserver.key" "$R/certs/apiserver.key.partial"
    cp "$R/pki/apiserver.crt" "$R/certs/apiserver.crt.partial"
    mv "$R/certs/apiserver.key.partial" "$R/certs/apiserver.key"
    mv "$R/certs/apiserver.crt.partial" "$R/certs/apiserver.crt"
    log "the API server's certificate is now one the pods' CA signed (it reloads it within a minute)"
  fi
  kubernetes_endpoints
  echo "$KUBECONFIG_FILE"
  exit 0
fi
bash "$HERE/node-down.sh" >/dev/null 2>&1 || true
BIN=$(bash "$HERE/../install-k8s-node.sh")

mkdir -p "$R"/{logs,pid,pki,certs,ov,ctrd,cni/net.d,cni/ipam,kubelet/pki,kubelet/volplugins,etcd}
t0=$(date +%s.%N)
step() { log "$(printf '%5.1fs' "$(echo "$(date +%s.%N) - $t0" | bc)") $*"; }

# --- credentials: a throwaway CA and static tokens (this node exists for tests; nothing is kept).
if [ ! -f "$R/pki/ca.crt" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$R/pki/ca.key" -subj /CN=lazyboy-test-ca -days 30 \
    -out "$R/pki/ca.crt" 2>/dev/null
  openssl genrsa -out "$R/pki/sa.key" 2048 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$R/pki/kc.key" -subj "/O=system:masters/CN=apiserver-kubelet-client" \
    -out "$R/pki/kc.csr" 2>/dev/null
  openssl x509 -req -in "$R/pki/kc.csr" -CA "$R/pki/ca.crt" -CAkey "$R/pki/ca.key" -CAcreateserial -days 30 \
    -out "$R/pki/kc.crt" 2>/dev/null
  openssl rand -hex 24 >"$R/pki/admin.token"
  openssl rand -hex 24 >"$R/pki/kubelet.token"
  printf '%s\n' "$(cat "$R/pki/admin.token"),admin,1,\"system:masters\"" \
    "$(cat "$R/pki/kubelet.token"),system:node:$NODE_NAME,2,\"system:nodes\"" >"$R/pki/tokens.csv"
  chmod 600 "$R"/pki/*
fi
serving_cert
for who in admin kubelet; do
  cat >"$R/$who.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: lazyboy-test, cluster: {server: "https://$NODE_IP:6443", insecure-skip-tls-verify: true}}]
users: [{name: $who, user: {token: $(cat "$R/pki/$who.token")}}]
contexts: [{name: lazyboy-test, context: {cluster: lazyboy-test, user: $who, namespace: default}}]
current-context: lazyboy-test
KC
  chmod 600 "$R/$who.kubeconfig"
done

# --- the node's namespace, held by `sleep infinity` inside unshare --net --mount.
cat >"$R/ns-init.sh" <<NS
#!/bin/bash
set -e
for d in etc varlib varlog opt; do mkdir -p $R/ov/\$d.up $R/ov/\$d.work; done
mount -t overlay o -o lowerdir=/etc,upperdir=$R/ov/etc.up,workdir=$R/ov/etc.work /etc
mount -t overlay o -o lowerdir=/var/lib,upperdir=$R/ov/varlib.up,workdir=$R/ov/varlib.work /var/lib
mount -t overlay o -o lowerdir=/var/log,upperdir=$R/ov/varlog.up,workdir=$R/ov/varlog.work /var/log
mount -t overlay o -o lowerdir=/opt,upperdir=$R/ov/opt.up,workdir=$R/ov/opt.work /opt
mount -t tmpfs t /run -o mode=755
mount -t tmpfs t $R/etcd
ip link set lo up
# This namespace's own forwarding (the host's is untouched): the host's packets to the pods pass through it.
sysctl -qw net.ipv4.ip_forward=1
touch $R/ns.ready
exec sleep infinity
NS
chmod +x "$R/ns-init.sh"
rm -f "$R/ns.ready"
setsid unshare --net --mount --propagation private -- "$R/ns-init.sh" >"$R/logs/ns.log" 2>&1 </dev/null &
echo $! >"$R/pid/holder"
until [ -f "$R/ns.ready" ]; do sleep 0.05; done
H=$(cat "$R/pid/holder")
NS=(nsenter -t "$H" -n -m --)
ip link del "$HOST_IF" 2>/dev/null || true
ip link add "$HOST_IF" type veth peer name nodeif netns "$H"
ip addr add "$HOST_IP/24" dev "$HOST_IF"
ip link set "$HOST_IF" up
"${NS[@]}" ip addr add "$NODE_IP/24" dev nodeif
"${NS[@]}" ip link set nodeif up
ip route add 10.88.0.0/24 via "$NODE_IP" dev "$HOST_IF"
ip route add 10.0.0.0/24 via "$NODE_IP" dev "$HOST_IF"
# ClusterIPs from the node's own processes (kube-proxy DNATs them on the way out).
"${NS[@]}" ip route add 10.0.0.0/24 dev nodeif
start() {
  local name=$1
  shift
  setsid "${NS[@]}" "$@" >"$R/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$R/pid/$name"
}
step "node namespace up (holder $H)"

# --- the control plane
start etcd etcd --name n --data-dir "$R/etcd/data" --listen-client-urls http://127.0.0.1:23790 \
  --advertise-client-urls http://127.0.0.1:23790 --listen-peer-urls http://127.0.0.1:23800 \
  --initial-advertise-peer-urls http://127.0.0.1:23800 --initial-cluster n=http://127.0.0.1:23800 --listen-metrics-urls ''
until "${NS[@]}" curl -sf http://127.0.0.1:23790/health >/dev/null; do sleep 0.1; done
step "etcd healthy"
start apiserver "$BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:23790 --bind-address=0.0.0.0 \
  --advertise-address="$NODE_IP" --secure-port=6443 --insecure-port=0 \
  --tls-cert-file="$R/pki/apiserver.crt" --tls-private-key-file="$R/pki/apiserver.key" \
  --token-auth-file="$R/pki/tokens.csv" --authorization-mode=Node,RBAC --client-ca-file="$R/pki/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$R/pki/sa.key" \
  --service-account-signing-key-file="$R/pki/sa.key" --api-audiences=https://kubernetes.default.svc \
  --service-cluster-ip-range=10.0.0.0/24 --endpoint-reconciler-type=none --profiling=false \
  --kubelet-client-certificate="$R/pki/kc.crt" --kubelet-client-key="$R/pki/kc.key" --kubelet-preferred-address-types=InternalIP
until curl -skf -H "Authorization: Bearer $(cat "$R/pki/admin.token")" "https://$NODE_IP:6443/readyz" >/dev/null; do sleep 0.2; done
kubernetes_endpoints
step "API server ready"
start kcm "$BIN/kube-controller-manager" --kubeconfig="$R/admin.kubeconfig" --secure-port=0 --port=0 --leader-elect=false \
  --service-account-private-key-file="$R/pki/sa.key" --root-ca-file="$R/pki/ca.crt" \
  --controllers='*,-nodeipam,-cloud-node-lifecycle,-route,-service,-attachdetach,-persistentvolume-expander,-bootstrapsigner,-tokencleaner,-csrsigning,-csrapproving,-csrcleaner'
start scheduler "$BIN/kube-scheduler" --kubeconfig="$R/admin.kubeconfig" --leader-elect=false --secure-port=0 --port=0

# --- containerd (the CRI) and the CNI bridge
sed "s#@R@#$R#g" "$HERE/containerd.toml" >"$R/ctrd/config.toml"
sed "s#@R@#$R#g" "$HERE/10-bridge.conflist" >"$R/cni/net.d/10-bridge.conflist"
start containerd containerd --config "$R/ctrd/config.toml"
CTR=("${NS[@]}" ctr --address "$R/ctrd/containerd.sock" -n k8s.io)
until "${CTR[@]}" version >/dev/null 2>&1; do sleep 0.1; done
step "containerd up"
for image in "$(bash "$HERE/pause-image.sh")" "$@"; do "${CTR[@]}" images import "$image" >/dev/null; done
step "images imported"

# --- kubelet and kube-proxy
start kubelet "$BIN/kubelet" --kubeconfig="$R/kubelet.kubeconfig" --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" \
  --address="$NODE_IP" --read-only-port=0 --healthz-bind-address=127.0.0.1 --root-dir="$R/kubelet" \
  --cert-dir="$R/kubelet/pki" --volume-plugin-dir="$R/kubelet/volplugins" --container-runtime=remote \
  --container-runtime-endpoint="unix://$R/ctrd/containerd.sock" --image-service-endpoint="unix://$R/ctrd/containerd.sock" \
  --cgroup-driver=cgroupfs --cgroups-per-qos=false --enforce-node-allocatable='' --fail-swap-on=false \
  --pod-infra-container-image=localhost/lazyboy/pause:1 --image-gc-high-threshold=100 --image-gc-low-threshold=99
start kube-proxy "$BIN/kube-proxy" --kubeconfig="$R/admin.kubeconfig" --hostname-override="$NODE_NAME" \
  --proxy-mode=iptables --cluster-cidr=10.88.0.0/24 --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 \
  --conntrack-tcp-timeout-close-wait=0 --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=127.0.0.1:10256

api() { curl -skf -H "Authorization: Bearer $(cat "$R/pki/admin.token")" "https://$NODE_IP:6443$1"; }
until api "/api/v1/nodes/$NODE_NAME" 2>/dev/null | jq -e '.status.conditions[]? | select(.type == "Ready" and .status == "True")' >/dev/null; do
  if ! kill -0 "$(cat "$R/pid/kubelet")" 2>/dev/null; then
    tail -20 "$R/logs/kubelet.log" >&2
    log "kubelet exited"
    exit 1
  fi
  sleep 0.3
done
until api /api/v1/namespaces/default/serviceaccounts/default >/dev/null 2>&1; do sleep 0.2; done
# Storage as on a k3s home server: the `local-path` class, its volumes made by local-path-provisioner.sh.
setsid bash "$HERE/local-path-provisioner.sh" "$R" >"$R/logs/local-path.log" 2>&1 </dev/null &
echo $! >"$R/pid/local-path"
curl -skf -X POST -H "Authorization: Bearer $(cat "$R/pki/admin.token")" -H 'content-type: application/json' \
  "https://$NODE_IP:6443/apis/storage.k8s.io/v1/storageclasses" -d '{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
  "metadata": {"name": "local-path", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
  "provisioner": "lazyboy.test/local-path", "reclaimPolicy": "Retain", "volumeBindingMode": "Immediate"}' >/dev/null
step "node $NODE_NAME Ready"
echo "$KUBECONFIG_FILE"
