# shellcheck shell=bash
# What every cluster has besides the control plane: CoreDNS and metrics-server (from scratch images made in
# images.sh), and the operators' CustomResourceDefinitions, so that the chart's operator modes can be validated by
# the API server (`--dry-run=server`) although the operators themselves cannot run here (their images are not
# reachable). Sourced by cluster.sh.

# apply_manifest <name>: deploy/cluster/manifests/<name>.yaml with the cluster's variables filled in.
apply_manifest() {
  COREDNS_VERSION="$COREDNS_VERSION" METRICS_SERVER_VERSION="$METRICS_SERVER_VERSION" CLUSTER_DOMAIN="$CLUSTER_DOMAIN" \
    DNS_SERVICE_IP="$DNS_SERVICE_IP" \
    envsubst '${COREDNS_VERSION} ${METRICS_SERVER_VERSION} ${CLUSTER_DOMAIN} ${DNS_SERVICE_IP}' \
    <"$CLUSTER_SCRIPTS/manifests/$1.yaml" | kubectl_admin apply --server-side --force-conflicts -f -
}

metrics_api_ready() { kubectl_admin get --raw /apis/metrics.k8s.io/v1beta1/nodes; }

install_addons() {
  apply_manifest coredns
  apply_manifest metrics-server
  install_crds
  kubectl_admin -n kube-system rollout status deployment/coredns --timeout 120s
  kubectl_admin -n kube-system rollout status deployment/metrics-server --timeout 120s
  wait_for 120 "metrics.k8s.io serving node metrics" metrics_api_ready
  note "CoreDNS $DNS_SERVICE_IP, metrics-server; CRDs: $(kubectl_admin get crd -o name | sed 's|.*/||' | paste -sd ' ')"
}

STRIMZI_VERSION="0.45.0"
MONGODB_OPERATOR_VERSION="v0.9.0"

# Strimzi's CRDs, generated once into the cache (deploy/cluster/strimzi/pom.xml says why and how).
strimzi_crds() {
  local dir="$CACHE/strimzi-crds-$STRIMZI_VERSION"
  # The KafkaUser CRD came later (the chart's per-service Kafka users): a cache made before it is made again.
  if [[ ! -f "$dir/.installed" || ! -f "$dir/044-Crd-kafkauser.yaml" ]]; then
    local work
    work="$(mktemp -d "$CACHE/.strimzi-crds.XXXXXX")"
    (cd "$CLUSTER_SCRIPTS/strimzi" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$work/classpath") >&2
    mkdir -p "$work/out"
    local model=io.strimzi.api.kafka.model
    java -cp "$(<"$work/classpath")" io.strimzi.crdgenerator.CrdGenerator --yaml --label app:strimzi \
      --label strimzi.io/crd-install:true --crd-api-version v1 --api-versions v1beta2 --storage-version v1beta2 \
      "$model.kafka.Kafka=$work/out/040-Crd-kafka.yaml" "$model.nodepool.KafkaNodePool=$work/out/045-Crd-kafkanodepool.yaml" \
      "$model.topic.KafkaTopic=$work/out/043-Crd-kafkatopic.yaml" "$model.user.KafkaUser=$work/out/044-Crd-kafkauser.yaml" 2>&1 | grep -v '^SLF4J' >&2 || true
    [[ -s "$work/out/040-Crd-kafka.yaml" ]] || fail "Strimzi's CRD generator wrote nothing"
    date -u +%FT%TZ >"$work/out/.installed"
    rm -rf "$dir"
    mv "$work/out" "$dir"
    rm -rf "$work"
  fi
  echo "$dir"
}

# The MongoDB Community Operator's CRD, from its Go module (the module's files include config/crd).
mongodb_crds() {
  local dir
  dir="$(GOFLAGS=-mod=mod go mod download -json "github.com/mongodb/mongodb-kubernetes-operator@$MONGODB_OPERATOR_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -n "$dir" ]] || fail "could not download the MongoDB Community Operator module"
  echo "$dir/config/crd/bases"
}

install_crds() {
  local file
  for file in "$(strimzi_crds)"/*.yaml "$(mongodb_crds)"/*.yaml; do
    kubectl_admin apply --server-side --force-conflicts -f "$file"
  done
  kubectl_admin wait --for condition=Established --timeout 60s \
    crd/kafkas.kafka.strimzi.io crd/kafkanodepools.kafka.strimzi.io crd/kafkatopics.kafka.strimzi.io crd/kafkausers.kafka.strimzi.io \
    crd/mongodbcommunity.mongodbcommunity.mongodb.com
}
