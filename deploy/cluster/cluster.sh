#!/usr/bin/env bash
# A single-node Kubernetes on this machine, with the product installed by its Helm chart: no Docker engine, no
# registry, no download outside the package registries. `npm run cluster:up` / `npm run cluster:down`.
#
#   cluster.sh up [phase...]   every phase in order (or only the named ones); each skips what is already done
#   cluster.sh down            stops every process, removes every mount, link, route and iptables chain it made
#   cluster.sh status          one line per process; exit 0 when all run
#   cluster.sh env             KUBECONFIG=..., the gateway's URL and the cluster stack's addresses, for eval
#
# State: .local/cluster/ (CRM_CLUSTER_DIR); builds: ~/.cache/crm-stack/. See deploy/cluster/README.md.
set -euo pipefail
# errexit inside $(...) too: a failed step in a command substitution (e.g. the image build whose tag it prints)
# must stop the phase, not hand on a stale result.
shopt -s inherit_errexit

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for part in deps tools images network stack pki control-plane node addons release teardown; do
  # shellcheck disable=SC1090
  source "$CLUSTER_SCRIPTS/$part.sh"
done

PHASES=(
  "deps install_deps Debian packages (podman, containerd, etcd, CNI plugins, iptables)"
  "tools build_tools Kubernetes $K8S_VERSION, helm, CoreDNS, metrics-server, kube-router (Go module proxy, cached)"
  "base-image build_base_image Node 20 base image (debootstrap bookworm + this host's Node, cached)"
  "images build_images the platform image (deploy/docker/Dockerfile) and the system images"
  "network setup_network bridge $BRIDGE ($NODE_IP), routes, egress guard, sysctls"
  "stack start_cluster_stack Kafka and SecantusDB for the cluster on $NODE_IP"
  "pki make_pki certificates and kubeconfigs"
  "control-plane start_control_plane etcd, kube-apiserver, controller-manager, scheduler"
  "node start_node containerd, kubelet, kube-proxy, kube-router; images loaded"
  "addons install_addons CoreDNS, metrics-server, the operators' CRDs"
  "chart install_release helm install of helm/crm (external MongoDB and Kafka: the cluster stack)"
)

cmd_up() {
  local wanted=("$@") entry name fn summary
  mkdir -p "$STATE"
  : >"$STATE/timings.tsv"
  local selected=()
  for entry in "${PHASES[@]}"; do
    name="${entry%% *}"
    if ((${#wanted[@]} == 0)) || [[ " ${wanted[*]} " == *" $name "* ]]; then selected+=("$entry"); fi
  done
  ((${#selected[@]} > 0)) || die "no such phase: ${wanted[*]} (phases: $(printf '%s ' "${PHASES[@]%% *}"))"
  PHASE_TOTAL=${#selected[@]}
  local started=$SECONDS
  for entry in "${selected[@]}"; do
    read -r name fn summary <<<"$entry"
    phase "$name" "$fn" "$summary"
  done
  printf 'cluster up in %d s (per phase: %s)\n' $((SECONDS - started)) "$STATE/timings.tsv" >&3
  if ((${#wanted[@]} == 0)); then cmd_env | sed 's/^/    /' >&3; fi
}

cmd_env() {
  printf 'KUBECONFIG=%s\n' "$KUBECONFIG_ADMIN"
  printf 'KUBECTL=%s\n' "$KUBE_BIN/kubectl"
  printf 'HELM=%s\n' "$(install_helm)"
  printf 'CLUSTER_NODE_IMAGE=%s\nCLUSTER_NODE_IP=%s\n' "$NODE_BASE_TAG" "$NODE_IP"
  printf 'CLUSTER_RELEASE=%s\nCLUSTER_NAMESPACE=%s\n' "$RELEASE" "$RELEASE_NAMESPACE"
  printf 'CLUSTER_VALUES=%s\n' "$STATE/values-local.yaml"
  printf 'CRM_GATEWAY_URL=%s\n' "$(cat "$STATE/gateway-url" 2>/dev/null || echo '')"
  printf 'CLUSTER_MONGODB_URI=mongodb://%s:%s/?directConnection=true\n' "$NODE_IP" "$CLUSTER_MONGO_PORT"
  printf 'CLUSTER_KAFKA_BROKERS=%s:%s\n' "$NODE_IP" "$CLUSTER_KAFKA_PORT"
  # The cluster's Kafka takes SCRAM logins only; its users' passwords are in this file (deploy/local/kafka.sh).
  printf 'CLUSTER_KAFKA_SASL_MECHANISM=SCRAM-SHA-512\nCLUSTER_KAFKA_USERS_FILE=%s\n' "$STATE/stack/kafka/scram-users"
}

main() {
  exec 3>&2
  [[ $EUID -eq 0 ]] || die "the cluster needs root (containerd, kubelet, iptables, mounts); this machine's user is root"
  case "${1:-}" in
    up) shift && cmd_up "$@" ;;
    down) teardown ;;
    status) cluster_status ;;
    env) cmd_env ;;
    *)
      sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
      exit 2
      ;;
  esac
}

main "$@"
