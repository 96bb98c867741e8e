#!/usr/bin/env bash
# Local dev/test stack without Docker: Kafka (KRaft) + SecantusDB (MongoDB wire
# protocol over WiredTiger) on loopback. Usage: stack.sh install|start|stop|status|env
# `eval "$(deploy/local/stack.sh start)"` sets MONGODB_URI and KAFKA_BROKERS;
# everything else is printed on stderr. See deploy/local/README.md.
set -euo pipefail

STACK_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deploy/local/lib.sh
source "$STACK_SCRIPT_DIR/lib.sh"
# shellcheck source=deploy/local/kafka.sh
source "$STACK_SCRIPT_DIR/kafka.sh"
# shellcheck source=deploy/local/secantus.sh
source "$STACK_SCRIPT_DIR/secantus.sh"

# A service is "external" when the caller already points at one; we then
# neither install nor start it, and pass the given value through.
mongo_external() { [[ -n "${MONGODB_URI:-}" ]]; }
kafka_external() { [[ -n "${KAFKA_BROKERS:-}" ]]; }

# Our own Kafka takes SCRAM logins only: the mechanism and the file of its identities' passwords (never the
# passwords themselves), unless a broker started by an older version of this script still runs without them. A
# Kafka given by KAFKA_BROKERS keeps the mechanism and users file given with it (what this script printed).
print_env() {
  print_env_line MONGODB_URI "${MONGODB_URI:-mongodb://$STACK_HOST:$STACK_MONGO_PORT/?directConnection=true}"
  print_env_line KAFKA_BROKERS "${KAFKA_BROKERS:-$STACK_HOST:$STACK_KAFKA_PORT}"
  if kafka_external; then
    if [[ -n "${KAFKA_SASL_MECHANISM:-}" && -n "${KAFKA_USERS_FILE:-}" ]]; then
      print_env_line KAFKA_SASL_MECHANISM "$KAFKA_SASL_MECHANISM"
      print_env_line KAFKA_USERS_FILE "$KAFKA_USERS_FILE"
    fi
  elif kafka_sasl_enabled; then
    print_env_line KAFKA_SASL_MECHANISM "$KAFKA_SCRAM_MECHANISM"
    print_env_line KAFKA_USERS_FILE "$KAFKA_SCRAM_USERS_FILE"
  fi
}

cmd_install() {
  if ! kafka_external; then kafka_install; fi
  if ! mongo_external; then secantus_install; fi
  log "installed in $STACK_CACHE"
}

cmd_start() {
  # Install both before starting either, so a failed build does not leave
  # one server running without the other.
  cmd_install
  if ! mongo_external; then secantus_preflight; fi
  if ! kafka_external; then kafka_preflight; fi
  if mongo_external; then log "MONGODB_URI is set: not starting SecantusDB"; else secantus_start; fi
  if kafka_external; then log "KAFKA_BROKERS is set: not starting Kafka"; else kafka_start; fi
  if ! kafka_external && ! kafka_sasl_enabled; then
    log "the running Kafka was started without authentication: stack.sh stop && stack.sh start turns it on"
  fi
  print_env
}

cmd_stop() {
  # Stop in reverse start order; both are harmless when not running.
  kafka_stop
  secantus_stop
}

cmd_status() {
  local rc=0
  if mongo_external; then
    printf 'secantus  external (MONGODB_URI=%s)\n' "$MONGODB_URI"
  else
    secantus_status || rc=1
  fi
  if kafka_external; then
    printf 'kafka     external (KAFKA_BROKERS=%s)\n' "$KAFKA_BROKERS"
  else
    kafka_status || rc=1
  fi
  return "$rc"
}

usage() {
  cat >&2 <<EOF
usage: $0 install|start|stop|status|env
  install  download/build Kafka $KAFKA_VERSION and SecantusDB $SECANTUS_VERSION into $STACK_CACHE
  start    install if needed, start both servers, wait until ready, print env lines
  stop     stop both servers (SIGTERM, then SIGKILL after ${STACK_STOP_TIMEOUT:-20}s)
  status   print up/down per server; exit 0 when both are up
  env      print MONGODB_URI=... and KAFKA_BROKERS=... without starting anything
EOF
}

main() {
  case "${1:-}" in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) print_env ;;
    -h | --help | help) usage ;;
    *)
      usage
      exit 2
      ;;
  esac
}

main "$@"
