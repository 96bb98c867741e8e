# shellcheck shell=bash
# The cluster's programs, built from the Go module proxy into ~/.cache/crm-stack once per machine: Kubernetes
# (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl) and the pause program,
# helm, CoreDNS, metrics-server and kube-router. Sourced by cluster.sh.
# shellcheck source=../helm-build.sh
source "$REPO_ROOT/deploy/helm-build.sh"

COREDNS_VERSION="v1.11.3"
METRICS_SERVER_VERSION="v0.7.2"
KUBE_ROUTER_VERSION="v2.1.0"

# The k8s.io/kubernetes module's go.mod points every k8s.io/* library at ./staging/, which its module zip lacks: each
# is pointed at its published module instead. The proxy here does not hold every patch release of each, so these are
# the nearest published ones of the same minor (the libraries do not change API within a minor); sample-* are
# examples nothing in the six programs imports, stubbed.
K8S_STAGING_VERSIONS="api=v0.31.14 apiextensions-apiserver=v0.31.14 apimachinery=v0.31.14 apiserver=v0.31.14
cli-runtime=v0.31.14 client-go=v0.31.14 cloud-provider=v0.31.14 cluster-bootstrap=v0.31.14 code-generator=v0.31.14
component-base=v0.31.14 component-helpers=v0.31.14 controller-manager=v0.31.14 cri-api=v0.31.14 cri-client=v0.31.14
csi-translation-lib=v0.31.14 dynamic-resource-allocation=v0.31.14 endpointslice=v0.31.13 kms=v0.31.14
kube-aggregator=v0.31.14 kube-controller-manager=v0.31.13 kube-proxy=v0.31.11 kube-scheduler=v0.31.13
kubectl=v0.31.14 kubelet=v0.31.14 metrics=v0.31.14 mount-utils=v0.31.14 pod-security-admission=v0.31.14"

prepare_kubernetes() {
  local pair name
  for pair in $K8S_STAGING_VERSIONS; do
    name="${pair%%=*}"
    go mod edit -replace "k8s.io/$name=k8s.io/$name@${pair#*=}"
  done
  for name in sample-apiserver sample-cli-plugin sample-controller; do
    mkdir -p "stub/$name"
    printf 'module k8s.io/%s\n\ngo 1.22\n' "$name" >"stub/$name/go.mod"
    go mod edit -replace "k8s.io/$name=./stub/$name"
  done
}

build_kubernetes() {
  local minor="${K8S_VERSION#v1.}"
  minor="${minor%%.*}"
  local v="k8s.io/component-base/version" c="k8s.io/client-go/pkg/version" ldflags=""
  for pkg in "$v" "$c"; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  go_module_build "$CACHE/kubernetes-$K8S_VERSION" "k8s.io/kubernetes@$K8S_VERSION" "$ldflags" prepare_kubernetes \
    ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler ./cmd/kubelet ./cmd/kube-proxy ./cmd/kubectl
  # The pod sandbox's pause program, from the C source the module ships (the image is made in images.sh).
  if [[ ! -x "$KUBE_BIN/pause" ]]; then
    local src
    src="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    gcc -Os -static -DVERSION=3.10 -o "$KUBE_BIN/pause.tmp" "$src/build/pause/linux/pause.c"
    mv "$KUBE_BIN/pause.tmp" "$KUBE_BIN/pause"
  fi
}

build_tools() {
  build_kubernetes
  note "kubernetes $K8S_VERSION: $("$KUBE_BIN/kubectl" version --client -o json | grep -m1 gitVersion | tr -d ' ",')"
  HELM="$(install_helm)"
  note "helm: $("$HELM" version --short)"
  go_module_build "$CACHE/coredns-$COREDNS_VERSION" "github.com/coredns/coredns@$COREDNS_VERSION" "" "" .
  go_module_build "$CACHE/metrics-server-$METRICS_SERVER_VERSION" "sigs.k8s.io/metrics-server@$METRICS_SERVER_VERSION" \
    "" "" ./cmd/metrics-server
  go_module_build "$CACHE/kube-router-$KUBE_ROUTER_VERSION" "github.com/cloudnativelabs/kube-router/v2@$KUBE_ROUTER_VERSION" \
    "-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$KUBE_ROUTER_VERSION" "" ./cmd/kube-router
  note "coredns $COREDNS_VERSION, metrics-server $METRICS_SERVER_VERSION, kube-router $KUBE_ROUTER_VERSION"
}
