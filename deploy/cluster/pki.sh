# shellcheck shell=bash
# Certificates and kubeconfigs of the cluster, with openssl, under $STATE/pki: one CA for the cluster (API server,
# kubelet, clients), one for etcd, one for the aggregation layer (front proxy, for metrics-server), the service
# account key pair. Made once; `cluster:down --purge` removes them with the rest of the state. Sourced by cluster.sh.

PKI="$STATE/pki"

# cert <name> <ca> <subject> [subjectAltName]: a key and a certificate signed by <ca>, valid one year.
cert() {
  local name="$1" ca="$2" subject="$3" san="${4:-}"
  [[ -f "$PKI/$name.crt" ]] && return 0
  openssl genrsa -out "$PKI/$name.key" 2048 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subject" -out "$PKI/$name.csr"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=serverAuth,clientAuth"
    if [[ -n "$san" ]]; then echo "subjectAltName=$san"; fi
  } >"$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
  rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

ca() {
  [[ -f "$PKI/$1.crt" ]] && return 0
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/$1.key" -out "$PKI/$1.crt" -days 3650 -sha256 \
    -subj "/CN=$2" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

# kubeconfig <name> <cert>: a kubeconfig for the client certificate <cert>.
kubeconfig() {
  local file="$PKI/$1.kubeconfig"
  [[ -f "$file" ]] && return 0
  cat >"$file.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: crm-local
    cluster:
      certificate-authority: $PKI/ca.crt
      server: https://$NODE_IP:$APISERVER_PORT
users:
  - name: $2
    user:
      client-certificate: $PKI/$2.crt
      client-key: $PKI/$2.key
contexts:
  - name: crm-local
    context: {cluster: crm-local, user: $2}
current-context: crm-local
EOF
  mv "$file.tmp" "$file"
}

make_pki() {
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  ca ca crm-local-ca
  ca etcd-ca crm-local-etcd-ca
  ca front-proxy-ca crm-local-front-proxy-ca
  local svc="DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.$CLUSTER_DOMAIN"
  cert apiserver ca "/CN=kube-apiserver" "$svc,IP:$API_SERVICE_IP,IP:$NODE_IP"
  cert apiserver-kubelet-client ca "/O=system:masters/CN=kube-apiserver-kubelet-client"
  cert apiserver-etcd-client etcd-ca "/CN=kube-apiserver-etcd-client"
  cert etcd etcd-ca "/CN=etcd" "IP:127.0.0.1,DNS:localhost"
  cert front-proxy-client front-proxy-ca "/CN=front-proxy-client"
  cert admin ca "/O=system:masters/CN=crm-local-admin"
  cert controller-manager ca "/CN=system:kube-controller-manager"
  cert scheduler ca "/CN=system:kube-scheduler"
  cert kubelet ca "/O=system:nodes/CN=system:node:$NODE_NAME" "DNS:$NODE_NAME,IP:$NODE_IP"
  cert kube-proxy ca "/CN=system:kube-proxy"
  cert kube-router ca "/CN=system:kube-router"
  if [[ ! -f "$PKI/sa.key" ]]; then
    openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
    openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  fi
  for name in admin controller-manager scheduler kubelet kube-proxy kube-router; do kubeconfig "$name" "$name"; done
  chmod 600 "$PKI"/*.key
  note "CA and $(find "$PKI" -name '*.crt' | wc -l) certificates in $PKI"
}
