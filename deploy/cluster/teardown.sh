# shellcheck shell=bash
# `cluster.sh down` and `cluster.sh status`. Down undoes everything up made, in reverse, and checks that nothing is
# left: the pods (drained by kubelet while it still runs, so the CNI plugin releases their addresses and network
# namespaces), every process, every mount under $STATE and $RUN, the bridge and its veths, the iptables chains of
# kube-proxy (KUBE-*), kube-router (KUBE-ROUTER-*, KUBE-POD-FW-*, KUBE-NWPLCY-* and its ipsets) and ours
# (CRM-CLUSTER-*), the sysctls as they were, the cluster's Kafka and SecantusDB. The cluster's runtime state goes
# too; the certificates, the logs and the image archives stay for the next up. Sourced by cluster.sh.

DAEMONS_IN_STOP_ORDER="kube-router kube-proxy kubelet containerd kube-scheduler kube-controller-manager kube-apiserver etcd"

# The pods first, while the control plane and kubelet run: every namespace's workloads deleted, then wait until
# containerd holds no sandbox.
drain_pods() {
  daemon_pid kube-apiserver >/dev/null && daemon_pid kubelet >/dev/null && daemon_pid containerd >/dev/null || return 0
  # Workloads first (so nothing recreates the pods), then the pods with a short grace: the cluster is going away,
  # what matters is that kubelet stops each sandbox through the runtime and the CNI plugin.
  kubectl_admin delete deployments,replicasets,jobs --all-namespaces --all --wait=false >/dev/null 2>&1 || true
  kubectl_admin delete pods --all-namespaces --all --grace-period 1 --wait=false >/dev/null 2>&1 || true
  # Done when no container runs and no pod network namespace is left (kubelet stopped every sandbox: the CNI plugin
  # released its address and veth).
  local deadline=$((SECONDS + 90))
  while ((SECONDS < deadline)); do
    ! ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls 2>/dev/null | grep -q RUNNING &&
      ! findmnt -rn -o TARGET | grep -q "^$RUN/containerd/io.containerd.grpc.v1.cri/netns/" && return 0
    sleep 1
  done
  echo "pods still running after 90 s; stopping them with the runtime"
}

stop_daemons() {
  local name
  for name in $DAEMONS_IN_STOP_ORDER; do
    local started=$SECONDS
    case "$name" in
      kube-router) stop_daemon "$name" 10 && "$CACHE/kube-router-$KUBE_ROUTER_VERSION/bin/kube-router" --cleanup-config >/dev/null 2>&1 || true ;;
      kube-proxy) stop_daemon "$name" 10 && "$KUBE_BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true ;;
      *) stop_daemon "$name" 20 ;;
    esac
    echo "  $name stopped in $((SECONDS - started)) s"
  done
  # Shims of containers that outlived containerd (they hold our socket address in their command line).
  local pid
  for pid in $(pgrep -f "containerd-shim.*$CONTAINERD_SOCK" || true); do kill -KILL "$pid" 2>/dev/null || true; done
  cluster_stack stop
}

# Every mount under the cluster's directories, deepest first.
unmount_all() {
  local target
  { findmnt -rn -o TARGET | grep -E "^($STATE|$RUN)(/|$)" || true; } | sort -r | while read -r target; do
    umount "$target" 2>/dev/null || umount -l "$target"
  done
}

remove_links() {
  local link
  for link in $(ip -o link show master "$BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link delete "$link" 2>/dev/null || true
  done
  ip link delete "$BRIDGE" 2>/dev/null || true
}

# Our chains in every table: the jumps to them from the built-in chains, then their rules, then the chains.
remove_chains() {
  local table chain pattern='^(KUBE-|CRM-CLUSTER-)'
  for table in filter nat mangle raw; do
    { iptables-save -t "$table" 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j (KUBE-|CRM-CLUSTER-)' || true; } |
      sed 's/^-A/-D/' | while read -r rule; do
      # shellcheck disable=SC2086 # the rule is split into iptables arguments on purpose
      eval "iptables -w -t $table $rule" 2>/dev/null || true
    done
    local chains
    chains="$(iptables-save -t "$table" 2>/dev/null | sed -n 's/^:\([^ ]*\) .*/\1/p' | grep -E "$pattern" || true)"
    for chain in $chains; do iptables -w -t "$table" -F "$chain" 2>/dev/null || true; done
    for chain in $chains; do iptables -w -t "$table" -X "$chain" 2>/dev/null || true; done
  done
  local set
  for set in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|kube-router-)' || true); do ipset destroy "$set" 2>/dev/null || true; done
}

# The processes still in kubelet's pod cgroups, one pid a line (a pid is listed once per cgroup hierarchy).
pod_processes() {
  find /sys/fs/cgroup -path '*kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u
}

# A container whose shim was killed above is reparented to init and keeps running (seen: a test's receiver pod,
# started while the drain ran, outlived cluster:down). Whatever is left in the pods' cgroups is killed here, so
# that its cgroup can go and its mounts are free.
kill_pod_processes() {
  local pid deadline=$((SECONDS + 10))
  for pid in $(pod_processes); do kill -KILL "$pid" 2>/dev/null || true; done
  while [[ -n "$(pod_processes)" ]] && ((SECONDS < deadline)); do sleep 0.2; done
}

# kubelet's cgroups (cgroupfs driver): kubepods and below, deepest first, once their processes are gone.
remove_cgroups() {
  find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d -name 'kubepods*' 2>/dev/null | sort -r | while read -r dir; do
    find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

restore_sysctls() {
  [[ -f "$STATE/sysctl.saved" ]] || return 0
  local line
  while read -r line; do sysctl -qw "$line" 2>/dev/null || echo "could not restore $line"; done <"$STATE/sysctl.saved"
  rm -f "$STATE/sysctl.saved"
}

# What must be gone; prints each leftover and fails if there is one.
check_clean() {
  local left=0 name
  for name in $DAEMONS_IN_STOP_ORDER; do
    if daemon_pid "$name" >/dev/null; then echo "left: process $name"; left=1; fi
  done
  if findmnt -rn -o TARGET | grep -qE "^($STATE|$RUN)(/|$)"; then echo "left: mounts"; findmnt -rn -o TARGET | grep -E "^($STATE|$RUN)(/|$)"; left=1; fi
  if ip link show "$BRIDGE" >/dev/null 2>&1; then echo "left: bridge $BRIDGE"; left=1; fi
  local chains
  chains="$(for t in filter nat mangle raw; do iptables-save -t "$t" 2>/dev/null; done | grep -cE '^:(KUBE-|CRM-CLUSTER-)' || true)"
  if ((chains > 0)); then echo "left: $chains iptables chains"; left=1; fi
  if pgrep -f "containerd-shim.*$CONTAINERD_SOCK" >/dev/null; then echo "left: containerd shims"; left=1; fi
  if [[ -n "$(pod_processes)" ]]; then echo "left: processes in the pods' cgroups: $(pod_processes | tr '\n' ' ')"; left=1; fi
  return "$left"
}

teardown() {
  local started=$SECONDS
  PHASE_TOTAL=2
  mkdir -p "$STATE/logs"
  phase stop teardown_stop "pods, processes, mounts, bridge, iptables chains, sysctls"
  phase check teardown_check "nothing left behind"
  printf 'cluster down in %d s\n' $((SECONDS - started)) >&3
}

# step <function>: runs one teardown step, its time in the log.
step() {
  local started=$SECONDS
  "$1"
  echo "$1: $((SECONDS - started)) s"
}

teardown_stop() {
  step drain_pods
  step stop_daemons
  step kill_pod_processes
  step unmount_all
  step remove_links
  step remove_chains
  step remove_cgroups
  step restore_sysctls
  if [[ -f "$STATE/created-paths" ]]; then
    xargs -r rm -rf <"$STATE/created-paths"
    rm -f "$STATE/created-paths"
  fi
  # The runtime state; kept: pki (certificates), logs, images (the archives for containerd), timings.
  rm -rf "$STATE"/{etcd,containerd,kubelet,cni,stack,pids,values-local.yaml,gateway-url} "$STATE"/images/*.imported "$RUN"
}

teardown_check() { check_clean; }

cluster_status() {
  local name rc=0 pid
  for name in etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet kube-proxy kube-router; do
    if pid="$(daemon_pid "$name")"; then printf '%-24s up    pid %s\n' "$name" "$pid"; else printf '%-24s down\n' "$name"; rc=1; fi
  done
  cluster_stack status || rc=1
  return "$rc"
}
