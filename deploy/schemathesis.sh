#!/usr/bin/env bash
# Runs a pinned schemathesis (property-based API testing from the OpenAPI document), installed once from PyPI
# into a virtualenv under ~/.cache/crm-stack/schemathesis-<version> and reused afterwards (CI: a clean machine
# with python3 and PyPI). Every argument is passed to `st`.
#
# Usage: bash deploy/schemathesis.sh run http://127.0.0.1:8080/api/docs/openapi.json -H 'Authorization: Bearer sk_live_…'
#        bash deploy/schemathesis.sh --install-only      (prints the path of st)
set -euo pipefail

# shellcheck source=lib/tools.sh
source "$(dirname "$0")/lib/tools.sh"
ST="$(pip_tool schemathesis "${SCHEMATHESIS_VERSION:-4.32.5}" st)"

if [[ "${1:-}" == "--install-only" ]]; then
  echo "$ST"
  exit 0
fi
# No telemetry, no colour codes in the captured output.
export SCHEMATHESIS_TELEMETRY=false NO_COLOR=1
exec "$ST" "$@"
