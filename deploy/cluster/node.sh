# shellcheck shell=bash
# The node: Debian's containerd (CRI) with runc and the CNI bridge plugin, the images imported into it, kubelet,
# kube-proxy (iptables mode, chains of its own) and kube-router's NetworkPolicy controller (firewall only: it
# enforces the chart's NetworkPolicies with iptables and ipset; the bridge plugin alone enforces none). Every path is
# under $STATE or $RUN, nothing is written under /etc. Sourced by cluster.sh.

CONTAINERD_SOCK="$RUN/containerd.sock"

write_node_configs() {
  mkdir -p "$STATE/containerd" "$STATE/cni/net.d" "$STATE/kubelet" "$RUN"
  cat >"$STATE/containerd/config.toml" <<EOF
# Written by deploy/cluster/node.sh.
version = 2
root = "$STATE/containerd/root"
state = "$RUN/containerd"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$STATE/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # The sandbox may not lower its processes' OOM score adjustment below its own (else runc fails with "can't get
  # final child's PID from pipe: EOF").
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # Pod network namespaces under containerd's state dir ($RUN), not /var/run/netns.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$RUN/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
EOF
  cat >"$STATE/cni/net.d/10-crm.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "crm",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$STATE/cni/ipam",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$NODE_IP" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    }
  ]
}
EOF
  cat >"$STATE/kubelet/config.yaml" <<EOF
# Written by deploy/cluster/node.sh.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $PKI/kubelet.crt
tlsPrivateKeyFile: $PKI/kubelet.key
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
clusterDNS: [$DNS_SERVICE_IP]
clusterDomain: $CLUSTER_DOMAIN
# Pods get the cluster's DNS only; the host's resolver is not theirs to use.
resolvConf: ""
failSwapOn: false
# No iptables chains from kubelet (kube-proxy makes the ones Services need).
makeIPTablesUtilChains: false
podLogsDir: $STATE/kubelet/pod-logs
volumePluginDir: $STATE/kubelet/volume-plugins
# The disk is shared: do not evict or garbage-collect images because other work fills it.
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
EOF
  cat >"$STATE/kube-proxy.yaml" <<EOF
# Written by deploy/cluster/node.sh.
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $PKI/kube-proxy.kubeconfig}
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $CLUSTER_CIDR
detectLocalMode: ClusterCIDR
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:$PROXY_HEALTHZ_PORT
metricsBindAddress: 127.0.0.1:$PROXY_METRICS_PORT
# Node ports only on the node's bridge address: never a rule for 127.0.0.1 or eth0, and route_localnet stays off.
nodePortAddresses: ["$NODE_IP/32"]
iptables: {localhostNodePorts: false, masqueradeAll: false, minSyncPeriod: 1s, syncPeriod: 30s}
# 0: leave the machine's conntrack table size and timeouts as they are.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
}

start_containerd() {
  start_daemon containerd /usr/bin/containerd --config "$STATE/containerd/config.toml"
  wait_for 30 "containerd" ctr --address "$CONTAINERD_SOCK" version
}

# Imports the archives images.sh saved, each only when its image id changed since the last import.
import_images() {
  local archive name
  for archive in "$STATE"/images/*.tar; do
    name="$(basename "$archive" .tar)"
    if cmp -s "$archive.id" "$STATE/images/$name.imported" 2>/dev/null; then continue; fi
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import --no-unpack=false "$archive" >/dev/null
    cp "$archive.id" "$STATE/images/$name.imported"
    echo "imported $name"
  done
}

start_kubelet() {
  start_daemon kubelet "$KUBE_BIN/kubelet" --config "$STATE/kubelet/config.yaml" \
    --kubeconfig "$PKI/kubelet.kubeconfig" --root-dir "$STATE/kubelet/root" \
    --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --v=1
}

start_kube_proxy() {
  start_daemon kube-proxy "$KUBE_BIN/kube-proxy" --config "$STATE/kube-proxy.yaml" --v=1
}

start_kube_router() {
  start_daemon kube-router "$CACHE/kube-router-$KUBE_ROUTER_VERSION/bin/kube-router" \
    --kubeconfig "$PKI/kube-router.kubeconfig" --hostname-override "$NODE_NAME" \
    --run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false \
    --service-cluster-ip-range "$SERVICE_CIDR" --health-port "$ROUTER_HEALTH_PORT" --metrics-port 0 --v=1
}

node_ready() { kubectl_admin get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -q True; }

start_node() {
  write_node_configs
  start_containerd
  import_images
  start_kubelet
  wait_for 90 "node $NODE_NAME Ready" node_ready
  start_kube_proxy
  wait_for 60 "kube-proxy" curl -sf "http://127.0.0.1:$PROXY_HEALTHZ_PORT/healthz"
  apply_manifest kube-router-rbac
  start_kube_router
  wait_for 60 "kube-router" curl -sf "http://127.0.0.1:$ROUTER_HEALTH_PORT/healthz"
  note "node $NODE_NAME Ready; images: $(ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls -q | grep -c '^localhost/')"
}
