# shellcheck shell=bash
# The product on the cluster: `helm upgrade --install` of helm/crm in namespace crm, in external mode on the
# cluster's own Kafka and SecantusDB (values-external.yaml plus deploy/cluster/values-local.yaml), with the image
# built here. Sourced by cluster.sh; the smoke tests (test/cluster) use the same values.

RELEASE="crm"
RELEASE_NAMESPACE="crm"

# The values the local release adds to values-external.yaml, with this cluster's addresses filled in.
local_values() {
  NODE_IP="$NODE_IP" CLUSTER_MONGO_PORT="$CLUSTER_MONGO_PORT" CLUSTER_KAFKA_PORT="$CLUSTER_KAFKA_PORT" \
    APP_IMAGE="$APP_IMAGE" APP_IMAGE_TAG="$(<"$STATE/app-image-tag")" \
    envsubst '${NODE_IP} ${CLUSTER_MONGO_PORT} ${CLUSTER_KAFKA_PORT} ${APP_IMAGE} ${APP_IMAGE_TAG}' \
    <"$CLUSTER_SCRIPTS/values-local.yaml" >"$STATE/values-local.yaml"
  echo "$STATE/values-local.yaml"
}

# The cluster's Kafka users' passwords (deploy/local/kafka.sh keeps them in the stack's state) as chart values, in a
# private file rather than on helm's command line; the topic hook logs in as the stack's admin.
kafka_password_values() {
  local file="$STATE/kafka-passwords.yaml"
  (umask 077 && awk 'BEGIN { print "secret:\n  kafkaPasswords:" }
    NF == 2 { printf "    %s: \"%s\"\n", ($1 == "admin" ? "createTopic" : $1), $2 }' "$STATE/stack/kafka/scram-users" >"$file")
  echo "$file"
}

install_release() {
  local helm values
  helm="$(install_helm)"
  values="$(local_values)"
  "$helm" upgrade --install "$RELEASE" "$REPO_ROOT/helm/crm" --kubeconfig "$KUBECONFIG_ADMIN" \
    --namespace "$RELEASE_NAMESPACE" --create-namespace \
    -f "$REPO_ROOT/helm/crm/values-external.yaml" -f "$values" -f "$(kafka_password_values)" --wait --timeout 10m
  local ip
  ip="$(kubectl_admin -n "$RELEASE_NAMESPACE" get service "$RELEASE-gateway" -o jsonpath='{.spec.clusterIP}')"
  echo "http://$ip" >"$STATE/gateway-url"
  note "release $RELEASE in namespace $RELEASE_NAMESPACE: $(kubectl_admin -n "$RELEASE_NAMESPACE" get deploy --no-headers | wc -l) Deployments ready; gateway $(<"$STATE/gateway-url")"
}
