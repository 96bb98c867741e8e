# shellcheck shell=bash
# The node's network, made before anything binds to it and undone by teardown.sh:
#   - the bridge $BRIDGE with the node's address ($NODE_IP/24, the pods' gateway); the CNI bridge plugin attaches the
#     pods to it (no masquerading: pod traffic has no reason to leave the machine);
#   - routes for the pod and service ranges to the bridge, so that traffic to an address kube-proxy has not (yet)
#     rewritten goes nowhere instead of out of eth0 to the default gateway;
#   - a guard (chains CRM-CLUSTER-FORWARD / CRM-CLUSTER-OUTPUT in the mangle table, ahead of every filter rule):
#     nothing from the pod range is forwarded anywhere but the bridge, nothing to the pod or service ranges leaves by
#     another interface;
#   - sysctls: IPv4 forwarding on (a pod's call to a Service is routed back into the bridge), bridged traffic through
#     iptables (kube-proxy's rewrite of a Service address must apply to pod-to-pod replies). Their values before are
#     kept in $STATE/sysctl.saved, with those kubelet sets itself (vm.overcommit_memory, kernel.panic, ...), and
#     restored by teardown.
# iptables policies are never changed; only chains of our own are added.

SAVED_SYSCTLS="net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.ipv4.conf.all.route_localnet
vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
kernel.keys.root_maxbytes net.netfilter.nf_conntrack_max"
GUARD_RANGES="$CLUSTER_CIDR $SERVICE_CIDR"

# ensure_rule <table> <chain> <rule...>: appends the rule unless it is there.
ensure_rule() {
  local table="$1" chain="$2"
  shift 2
  iptables -w -t "$table" -C "$chain" "$@" 2>/dev/null || iptables -w -t "$table" -A "$chain" "$@"
}

# Paths outside $STATE and $RUN that the node's programs make whatever they are told: kubelet's device-plugin socket,
# containerd's shim sockets, the CNI library's cache. Those absent before up are listed in $STATE/created-paths and
# removed by teardown.
FIXED_PATHS="/var/lib/kubelet /run/containerd /var/lib/cni"

setup_network() {
  if [[ ! -f "$STATE/created-paths" ]]; then
    local path
    for path in $FIXED_PATHS; do [[ -e "$path" ]] || echo "$path"; done >"$STATE/created-paths"
  fi
  if [[ ! -f "$STATE/sysctl.saved" ]]; then
    local key
    for key in $SAVED_SYSCTLS; do printf '%s=%s\n' "$key" "$(sysctl -n "$key")"; done >"$STATE/sysctl.saved.tmp"
    mv "$STATE/sysctl.saved.tmp" "$STATE/sysctl.saved"
  fi
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1

  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  ip -4 addr show dev "$BRIDGE" | grep -q "inet $NODE_IP/" || ip addr add "$NODE_IP/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  local range
  for range in $GUARD_RANGES; do ip route replace "$range" dev "$BRIDGE"; done

  local chain
  for chain in FORWARD OUTPUT; do
    iptables -w -t mangle -N "CRM-CLUSTER-$chain" 2>/dev/null || true
    iptables -w -t mangle -C "$chain" -j "CRM-CLUSTER-$chain" 2>/dev/null || iptables -w -t mangle -I "$chain" 1 -j "CRM-CLUSTER-$chain"
  done
  ensure_rule mangle CRM-CLUSTER-FORWARD -s "$CLUSTER_CIDR" ! -o "$BRIDGE" -j DROP
  # The node's own address is reached over lo.
  ensure_rule mangle CRM-CLUSTER-OUTPUT -o lo -j RETURN
  for range in $GUARD_RANGES; do
    ensure_rule mangle CRM-CLUSTER-FORWARD -d "$range" ! -o "$BRIDGE" -j DROP
    ensure_rule mangle CRM-CLUSTER-OUTPUT -d "$range" ! -o "$BRIDGE" -j DROP
  done
  note "bridge $BRIDGE $NODE_IP, routes for $GUARD_RANGES, guard chains CRM-CLUSTER-FORWARD/OUTPUT (mangle)"
}
