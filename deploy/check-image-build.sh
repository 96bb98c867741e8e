# shellcheck shell=bash
# `deploy/check-images.sh --build`: the chart's image built with podman and checked from the outside (see there).
# Sourced by check-images.sh, after deploy/lib/tools.sh (log, fail).

# shellcheck source=cluster/lib.sh
source "$ROOT/deploy/cluster/lib.sh"
# shellcheck source=cluster/deps.sh
source "$ROOT/deploy/cluster/deps.sh"
# shellcheck source=cluster/images.sh
source "$ROOT/deploy/cluster/images.sh"
exec 3>&2
# The cluster scripts' output helpers, as this script prints.
log() { printf '==> %s\n' "$*" >&2; }
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}
note() { log "$@"; }

# Paths that would be dev-only code in the image, relative to /app (third-party node_modules aside).
DEV_ONLY_PATTERN='(^|/)tools(/|$)|simulator|fake-openai|demo-seed'

check_image_contents() {
  local image="$1" mnt problems=""
  mnt="$(podman image mount "$image")"
  local found tool
  found="$(cd "$mnt/app" && find . -path ./node_modules -prune -o -print | sed 's|^\./||' | grep -iE "$DEV_ONLY_PATTERN" || true)"
  [[ -z "$found" ]] || problems+="dev-only code in the image:"$'\n'"$found"$'\n'
  [[ ! -e "$mnt/app/node_modules/@crm/dev-tools" ]] || problems+="the dev-only workspace @crm/dev-tools is installed"$'\n'
  found="$(cd "$mnt/app" && find . -path ./node_modules -prune -o -name '*.ts' ! -name '*.d.ts' -print)"
  [[ -z "$found" ]] || problems+="TypeScript sources in the image:"$'\n'"$found"$'\n'
  for tool in typescript tsx vitest eslint prettier esbuild @bufbuild/buf; do
    [[ ! -e "$mnt/app/node_modules/$tool" ]] || problems+="dev dependency $tool in the image"$'\n'
  done
  [[ ! -e "$mnt/usr/local/bin/npm" && ! -e "$mnt/usr/local/lib/node_modules" ]] || problems+="npm is in the image"$'\n'
  podman image unmount "$image" >/dev/null
  if [[ -n "$problems" ]]; then
    printf 'FAIL: %s:\n%s' "$image" "$problems" >&2
    return 1
  fi
  log "contents: no tools/, simulator, fake model server, demo seeding, sources, dev dependencies or npm"
}

check_image_config() {
  local image="$1" user uid health
  user="$(podman image inspect --format '{{.Config.User}}' "$image")"
  [[ "$user" =~ ^[1-9][0-9]*(:[1-9][0-9]*)?$ ]] || fail "image user is '$user', not a numeric non-root uid"
  uid="$(podman run --rm --network none --no-healthcheck --entrypoint id "$image" -u)"
  [[ "$uid" == 1000 ]] || fail "the image's processes run as uid $uid"
  health="$(podman image inspect --format '{{json .Config.Healthcheck}}' "$image")"
  [[ "$health" == *healthcheck.js* ]] || fail "the image has no HEALTHCHECK (got $health)"
  log "config: user $user (uid $uid), HEALTHCHECK kept"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# run_and_probe <image> <service> <env...>: starts the service as the chart would (read-only root, tmpfs /tmp), waits
# until its HEALTHCHECK passes, then stops it with SIGTERM and expects a clean exit within the drain.
run_and_probe() {
  local image="$1" service="$2" name="crm-image-check-$$-$2" deadline code
  shift 2
  podman rm -f "$name" >/dev/null 2>&1 || true
  podman run -d --name "$name" --network host --read-only --tmpfs /tmp --health-interval disable \
    -e SERVICE="$service" -e METRICS_PORT=0 -e LOG_LEVEL=warn -e MONGODB_URI -e KAFKA_BROKERS -e SERVICE_TOKEN_SECRET "$@" \
    "$image" "$service" >/dev/null
  deadline=$((SECONDS + 90))
  until podman healthcheck run "$name" >/dev/null 2>&1; do
    if [[ "$(podman inspect --format '{{.State.Running}}' "$name")" != true ]] || ((SECONDS > deadline)); then
      podman logs "$name" 2>&1 | tail -n 30 >&2
      podman rm -f "$name" >/dev/null
      fail "$service: HEALTHCHECK did not pass"
    fi
    sleep 1
  done
  podman stop -t 30 "$name" >/dev/null
  code="$(podman inspect --format '{{.State.ExitCode}}' "$name")"
  podman logs "$name" >"${TMPDIR:-/tmp}/$name.log" 2>&1 || true
  podman rm -f "$name" >/dev/null
  [[ "$code" == 0 ]] || fail "$service: exit code $code after SIGTERM (log: ${TMPDIR:-/tmp}/$name.log)"
  log "$service: HEALTHCHECK passed, SIGTERM drained and exited 0"
}

check_built_image() {
  CLUSTER_PACKAGES="podman buildah debootstrap" install_deps >&2
  build_base_image >&2
  local tag image
  tag="$(build_app_image)"
  image="$APP_IMAGE:$tag"
  log "built $image ($(podman image inspect --format '{{.Size}}' "$image" | numfmt --to=iec))"
  # Every check runs; the contents' verdict counts at the end.
  local contents=0
  check_image_contents "$image" || contents=1
  check_image_config "$image"
  if [[ -z "${MONGODB_URI:-}" || -z "${KAFKA_BROKERS:-}" ]]; then
    bash "$ROOT/deploy/local/stack.sh" status >/dev/null 2>&1 || fail "set MONGODB_URI and KAFKA_BROKERS, or start the local stack (npm run stack:start)"
    eval "$(bash "$ROOT/deploy/local/stack.sh" env)"
  fi
  export MONGODB_URI KAFKA_BROKERS
  # A Kafka that takes logins only (deploy/local/kafka.sh: KAFKA_SASL_MECHANISM and its users file): crm logs in as
  # its own user, the password passed by name so that it is not on a command line.
  local -a kafka_login=()
  if [[ -n "${KAFKA_USERS_FILE:-}" ]]; then
    KAFKA_SASL_USERNAME=crm
    KAFKA_SASL_PASSWORD="$(awk '$1 == "crm" { print $2 }' "$KAFKA_USERS_FILE")"
    export KAFKA_SASL_MECHANISM KAFKA_SASL_USERNAME KAFKA_SASL_PASSWORD
    kafka_login=(-e KAFKA_SASL_MECHANISM -e KAFKA_SASL_USERNAME -e KAFKA_SASL_PASSWORD)
  fi
  # The keys production refuses to start without: service tokens (every process) and cursors (the gateway), passed
  # by name so that they are not on a command line.
  SERVICE_TOKEN_SECRET="$(node -p "require('node:crypto').randomBytes(48).toString('base64url')")"
  CURSOR_SECRET="$(node -p "require('node:crypto').randomBytes(48).toString('base64url')")"
  export SERVICE_TOKEN_SECRET CURSOR_SECRET
  local run="image_check_$$_$RANDOM"
  run_and_probe "$image" crm -e CRM_GRPC_HOST=127.0.0.1 -e CRM_GRPC_PORT="$(free_port)" -e CRM_DB_NAME="$run" \
    -e EVENTS_TOPIC="$run" -e EVENTS_TOPIC_PARTITIONS=1 -e CRM_CONSUMER_GROUP="$run" "${kafka_login[@]}"
  run_and_probe "$image" gateway -e HOST=127.0.0.1 -e PORT="$(free_port)" -e GATEWAY_DB_NAME="$run" -e CURSOR_SECRET
  ((contents == 0)) || fail "the image holds what it must not (above)"
}
