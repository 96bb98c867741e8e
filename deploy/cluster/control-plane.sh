# shellcheck shell=bash
# The control plane as host processes: Debian's etcd (TLS, client certificates, loopback only), kube-apiserver on
# the bridge address, kube-controller-manager and kube-scheduler on loopback ports of their own. Sourced by cluster.sh.

start_etcd() {
  mkdir -p "$STATE/etcd"
  chmod 700 "$STATE/etcd"
  start_daemon etcd /usr/bin/etcd --name "$NODE_NAME" --data-dir "$STATE/etcd" \
    --listen-client-urls "https://127.0.0.1:$ETCD_PORT" --advertise-client-urls "https://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "$NODE_NAME=http://127.0.0.1:$ETCD_PEER_PORT" \
    --cert-file "$PKI/etcd.crt" --key-file "$PKI/etcd.key" --client-cert-auth --trusted-ca-file "$PKI/etcd-ca.crt" \
    --quota-backend-bytes 2147483648 --log-level warn
}

start_apiserver() {
  start_daemon kube-apiserver "$KUBE_BIN/kube-apiserver" \
    --advertise-address "$NODE_IP" --bind-address "$NODE_IP" --secure-port "$APISERVER_PORT" \
    --etcd-servers "https://127.0.0.1:$ETCD_PORT" --etcd-cafile "$PKI/etcd-ca.crt" \
    --etcd-certfile "$PKI/apiserver-etcd-client.crt" --etcd-keyfile "$PKI/apiserver-etcd-client.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" --allow-privileged=true --authorization-mode Node,RBAC \
    --enable-admission-plugins NodeRestriction --client-ca-file "$PKI/ca.crt" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$PKI/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-issuer "https://kubernetes.default.svc.$CLUSTER_DOMAIN" \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$PKI/front-proxy-client.crt" --proxy-client-key-file "$PKI/front-proxy-client.key" \
    --enable-aggregator-routing=true --profiling=false --v=1
}

start_controller_manager() {
  start_daemon kube-controller-manager "$KUBE_BIN/kube-controller-manager" \
    --kubeconfig "$PKI/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$PKI/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$PKI/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$CONTROLLER_MANAGER_PORT" --leader-elect=false \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" --root-ca-file "$PKI/ca.crt" \
    --service-account-private-key-file "$PKI/sa.key" --use-service-account-credentials=true \
    --service-cluster-ip-range "$SERVICE_CIDR" --cluster-cidr "$CLUSTER_CIDR" --allocate-node-cidrs=false \
    --flex-volume-plugin-dir "$STATE/kubelet/volume-plugins" \
    --profiling=false --v=1
}

start_scheduler() {
  start_daemon kube-scheduler "$KUBE_BIN/kube-scheduler" \
    --kubeconfig "$PKI/scheduler.kubeconfig" --authentication-kubeconfig "$PKI/scheduler.kubeconfig" \
    --authorization-kubeconfig "$PKI/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT" --leader-elect=false --profiling=false --v=1
}

apiserver_ready() { kubectl_admin get --raw /readyz; }

start_control_plane() {
  start_etcd
  wait_for 30 "etcd" curl -sf --cacert "$PKI/etcd-ca.crt" --cert "$PKI/apiserver-etcd-client.crt" \
    --key "$PKI/apiserver-etcd-client.key" "https://127.0.0.1:$ETCD_PORT/health"
  start_apiserver
  wait_for 90 "kube-apiserver /readyz" apiserver_ready
  start_controller_manager
  start_scheduler
  wait_for 60 "kube-controller-manager" curl -skf "https://127.0.0.1:$CONTROLLER_MANAGER_PORT/healthz"
  wait_for 60 "kube-scheduler" curl -skf "https://127.0.0.1:$SCHEDULER_PORT/healthz"
  note "API server https://$NODE_IP:$APISERVER_PORT ($(kubectl_admin version -o json | grep -m2 gitVersion | tail -1 | tr -d ' ",'))"
}
