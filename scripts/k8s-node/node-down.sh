#!/usr/bin/env bash
# Stops the test node scripts/k8s-node/node-up.sh started: every container, then each process by its pid,
# then the namespace (its mounts, bridge, veth pair and firewall rules go with it) and leftover cgroups.
set -uo pipefail
NODE_DIR=${LAZYBOY_K8S_NODE_DIR:-/var/tmp/lazyboy-k8s-node}
R=$NODE_DIR/run
[ -d "$R/pid" ] || exit 0
stop() {
  local file=$R/pid/$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  kill "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
  rm -f "$file"
}
# The kubelet first, so that it restarts nothing; then every container it left.
for name in local-path kube-proxy kubelet; do stop "$name"; done
H=$(cat "$R/pid/holder" 2>/dev/null)
if [ -n "$H" ] && kill -0 "$H" 2>/dev/null; then
  CTR=(nsenter -t "$H" -n -m -- ctr --address "$R/ctrd/containerd.sock" -n k8s.io)
  for task in $("${CTR[@]}" tasks ls -q 2>/dev/null); do
    "${CTR[@]}" tasks kill -s SIGKILL "$task" >/dev/null 2>&1
  done
  sleep 0.3
  for task in $("${CTR[@]}" tasks ls -q 2>/dev/null); do "${CTR[@]}" tasks delete -f "$task" >/dev/null 2>&1; done
  for c in $("${CTR[@]}" containers ls -q 2>/dev/null); do "${CTR[@]}" containers delete "$c" >/dev/null 2>&1; done
  # Sandboxes' network namespaces are mounted under the state directory.
  nsenter -t "$H" -m -- sh -c "grep -o '$R/ctrd/state[^ ]*' /proc/self/mounts | xargs -r -n1 umount -l" 2>/dev/null
fi
for name in containerd scheduler kcm apiserver etcd holder; do stop "$name"; done
ip link del lbk8s0 2>/dev/null
sleep 0.3
for d in $(find /sys/fs/cgroup/*/k8s.io -depth -type d 2>/dev/null); do rmdir "$d" 2>/dev/null; done
rm -rf "$R/ns.ready" "$R/etcd" "$R/ctrd/state" "$R/kubelet/pods" "$R/volumes"
leftover=$(ls -d /sys/fs/cgroup/*/k8s.io 2>/dev/null | wc -l)
echo "[k8s-node] down; leftover cgroups: $leftover" >&2
