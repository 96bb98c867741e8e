# shellcheck shell=bash
# helm, built from its Go module into ~/.cache/crm-stack/helm-<version>/ once per machine (release binaries are not
# reachable here). Used by deploy/validate-chart.sh and deploy/cluster. Sourced; needs log/fail from the caller.
# shellcheck source=go-module-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-module-build.sh"

HELM_VERSION="${HELM_VERSION:-v3.16.4}"
# Kubernetes version helm lints and renders for when no cluster is asked (its client libraries' version, 1.31 for
# helm 3.16). Helm's release builds stamp it in with -ldflags; so does this one.
HELM_KUBE_VERSION="${HELM_KUBE_VERSION:-1.31.0}"

# Prints the path of the helm binary, building it first when needed.
install_helm() {
  local dir="${CRM_STACK_CACHE:-$HOME/.cache/crm-stack}/helm-${HELM_VERSION}"
  if [[ ! -x "$dir/bin/helm" ]]; then
    local minor="${HELM_KUBE_VERSION#1.}" pkg
    minor="${minor%%.*}"
    local ldflags="-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
    for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
      ldflags+=" -X ${pkg}.k8sVersionMajor=1 -X ${pkg}.k8sVersionMinor=${minor}"
    done
    go_module_build "$dir" "helm.sh/helm/v3@${HELM_VERSION}" "$ldflags" "" ./cmd/helm >&2
  fi
  echo "$dir/bin/helm"
}
