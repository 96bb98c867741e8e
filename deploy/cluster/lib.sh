# shellcheck shell=bash
# Shared by the deploy/cluster scripts: the cluster's addresses and ports, its paths, progress output with times,
# and process helpers. Sourced, never run. See deploy/cluster/README.md.

CLUSTER_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$CLUSTER_SCRIPTS/../.." && pwd)"
# Pid files, spawn_detached, stop_pid, the cache lock and atomic staging dirs: the local stack's helpers.
# shellcheck source=../local/lib.sh
source "$REPO_ROOT/deploy/local/lib.sh"

K8S_VERSION="${K8S_VERSION:-v1.31.14}"
CACHE="${CRM_STACK_CACHE:-$HOME/.cache/crm-stack}"
# This clone's cluster: pki, etcd data, kubelet and containerd roots, logs, pid files.
STATE="${CRM_CLUSTER_DIR:-$REPO_ROOT/.local/cluster}"
# Sockets and containerd's state (short paths: a unix socket path has at most 107 bytes). One cluster per machine:
# kube-proxy's iptables chains and the bridge are machine-wide.
RUN="/run/crm-cluster"
NODE_NAME="crm-local"

# Addresses. Everything the cluster serves is bound to the pod bridge's own address, never to eth0 and never to
# loopback ports other tests use: pods reach it as their gateway, the host as a local address. Pod and service
# traffic never leaves the machine (network.sh adds routes for both ranges to the bridge and a guard that drops
# anything from the pod range headed elsewhere).
BRIDGE="crm0"
NODE_IP="10.244.0.1"
POD_CIDR="10.244.0.0/24"
CLUSTER_CIDR="10.244.0.0/16"
SERVICE_CIDR="10.96.0.0/16"
API_SERVICE_IP="10.96.0.1"
DNS_SERVICE_IP="10.96.0.10"
CLUSTER_DOMAIN="cluster.local"

# Ports, away from the well-known ones (6443, 2379, 10250...), from the local stack's (27027, 19092/3), the dev
# system's (3000, 9464-9468) and from the ephemeral range (32768+) free-port helpers draw from.
APISERVER_PORT="${CLUSTER_APISERVER_PORT:-16443}"
ETCD_PORT="${CLUSTER_ETCD_PORT:-23790}"
ETCD_PEER_PORT="${CLUSTER_ETCD_PEER_PORT:-23800}"
KUBELET_PORT="${CLUSTER_KUBELET_PORT:-20250}"
KUBELET_HEALTHZ_PORT="${CLUSTER_KUBELET_HEALTHZ_PORT:-20248}"
PROXY_METRICS_PORT="${CLUSTER_PROXY_METRICS_PORT:-20249}"
PROXY_HEALTHZ_PORT="${CLUSTER_PROXY_HEALTHZ_PORT:-20256}"
CONTROLLER_MANAGER_PORT="${CLUSTER_CONTROLLER_MANAGER_PORT:-20257}"
SCHEDULER_PORT="${CLUSTER_SCHEDULER_PORT:-20259}"
ROUTER_HEALTH_PORT="${CLUSTER_ROUTER_HEALTH_PORT:-20244}"
# The cluster's own Kafka and SecantusDB (deploy/local/stack.sh on the bridge address).
CLUSTER_MONGO_PORT="${CLUSTER_MONGO_PORT:-27127}"
CLUSTER_KAFKA_PORT="${CLUSTER_KAFKA_PORT:-19192}"
CLUSTER_KAFKA_CONTROLLER_PORT="${CLUSTER_KAFKA_CONTROLLER_PORT:-19193}"

# Images: the app image as the chart names it, and the Node base image the Dockerfile builds on.
APP_IMAGE="localhost/crm-platform"
NODE_BASE_IMAGE="localhost/crm-node"

KUBE_BIN="$CACHE/kubernetes-$K8S_VERSION/bin"
KUBECONFIG_ADMIN="$STATE/pki/admin.kubeconfig"
PATH="$KUBE_BIN:$PATH"

# podman and buildah read their configuration from files of ours (no change under /etc): storage in the cache, the
# file-descriptor limit pinned to the current one (the sandbox cannot raise rlimits: "error setting rlimit type 7").
export CONTAINERS_CONF="$CACHE/containers/containers.conf"
export CONTAINERS_STORAGE_CONF="$CACHE/containers/storage.conf"

# Output. Phase lines go to the terminal (fd 3, opened by cluster.sh); each phase's detail goes to its log file.
log() { printf '    %s\n' "$*" >&3; }
die() {
  printf 'ERROR: %s\n' "$*" >&3
  exit 1
}
fail() { die "$@"; }
IS_TTY=false
[[ -t 2 ]] && IS_TTY=true

# phase <name> <function> <summary>: runs the function with its output in logs/<name>.log, shows the elapsed time
# while it runs (a ticking line on a terminal, plain lines otherwise) and records the time in timings.tsv.
PHASE_INDEX=0
PHASE_TOTAL=0
phase() {
  local name="$1" fn="$2" summary="$3" log_file="$STATE/logs/$1.log" started rc=0 ticker
  PHASE_INDEX=$((PHASE_INDEX + 1))
  mkdir -p "$STATE/logs"
  : >"$log_file"
  started=$(date +%s%N)
  local label
  label="$(printf '[%2d/%d] %-14s %s' "$PHASE_INDEX" "$PHASE_TOTAL" "$name" "$summary")"
  if $IS_TTY; then
    (
      local s=0
      while sleep 1; do
        s=$((s + 1))
        printf '\r\033[K%s … %ds' "$label" "$s" >&3
      done
    ) &
    ticker=$!
    printf '%s …' "$label" >&3
  else
    printf '%s …\n' "$label" >&3
    # Plain lines for logs: one every 30 s while a long phase (a build) runs.
    (
      local s=0
      while sleep 1; do
        s=$((s + 1))
        if ((s % 30 == 0)); then printf '       %s still running after %ds\n' "$name" "$s" >&3; fi
      done
    ) &
    ticker=$!
  fi
  # A subshell with errexit of its own: in `fn || ...` bash would ignore errexit inside fn.
  set +e
  (
    set -e
    "$fn"
  ) >>"$log_file" 2>&1
  rc=$?
  set -e
  kill "$ticker" 2>/dev/null
  wait "$ticker" 2>/dev/null || true
  if $IS_TTY; then printf '\r\033[K' >&3; fi
  local ms=$((($(date +%s%N) - started) / 1000000))
  local seconds
  seconds="$(printf '%d.%01d' $((ms / 1000)) $((ms % 1000 / 100)))"
  if ((rc != 0)); then
    printf '%s FAILED after %ss; last lines of %s:\n' "$label" "$seconds" "$log_file" >&3
    tail -n 30 "$log_file" | sed 's/^/    | /' >&3
    exit "$rc"
  fi
  printf '%s done in %ss\n' "$label" "$seconds" >&3
  printf '%s\t%s\n' "$name" "$seconds" >>"$STATE/timings.tsv"
}

# note <text>: a line in the phase's log and on the terminal (what was reused, what was built).
note() {
  printf '%s\n' "$*"
  if $IS_TTY; then printf '\r\033[K    %s\n' "$*" >&3; else printf '    %s\n' "$*" >&3; fi
}

kubectl_admin() { "$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }

# wait_for <seconds> <description> <command...>: retries the command every second until it succeeds.
wait_for() {
  local timeout="$1" what="$2" deadline
  shift 2
  deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { echo "timed out after ${timeout}s waiting for $what"; return 1; }
    sleep 1
  done
}

# Process helpers over pid files in $STATE/pids: start_daemon <name> <command...> (detached, output in
# logs/<name>.out), daemon_pid <name> (the live pid, or fails), stop_daemon <name> [grace seconds].
start_daemon() {
  local name="$1" pid
  shift
  mkdir -p "$STATE/pids" "$STATE/logs"
  if pid="$(daemon_pid "$name")"; then
    echo "$name already running (pid $pid)"
    return 0
  fi
  spawn_detached "$STATE/logs/$name.out" "$STATE/pids/$name.pid" "$@"
  echo "$name started (pid $(<"$STATE/pids/$name.pid"))"
}
daemon_pid() { live_pid "$STATE/pids/$1.pid" "$1"; }
stop_daemon() {
  local name="$1" grace="${2:-20}" pid
  if pid="$(daemon_pid "$name")"; then stop_pid "$name" "$pid" "$grace"; fi
  rm -f "$STATE/pids/$name.pid"
}
