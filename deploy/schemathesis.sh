#!/usr/bin/env bash
# Runs a pinned schemathesis (property-based API testing from the OpenAPI document), installed once from PyPI
# into a virtualenv under ~/.cache/crm-stack/schemathesis-<version> and reused afterwards (CI: a clean machine
# with python3 and PyPI). Every argument is passed to `st`.
#
# Usage: bash deploy/schemathesis.sh run http://127.0.0.1:8080/api/docs/openapi.json -H 'Authorization: Bearer sk_live_…'
#        bash deploy/schemathesis.sh --install-only      (prints the path of st)
set -euo pipefail

ST_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
ST_DIR="${HOME}/.cache/crm-stack/schemathesis-${ST_VERSION}"
ST="$ST_DIR/bin/st"

log() { printf '==> %s\n' "$*" >&2; }

# The marker is written last: an interrupted install is redone, never taken for a complete one.
if [[ ! -f "$ST_DIR/.installed" ]]; then
  command -v python3 >/dev/null || { echo 'FAIL: python3 (with venv) is needed for schemathesis' >&2; exit 1; }
  log "installing schemathesis ${ST_VERSION} into $ST_DIR (first run only)"
  rm -rf "$ST_DIR"
  python3 -m venv "$ST_DIR" >&2
  "$ST_DIR/bin/pip" install -q --disable-pip-version-check "schemathesis==${ST_VERSION}" >&2
  touch "$ST_DIR/.installed"
fi

if [[ "${1:-}" == "--install-only" ]]; then
  echo "$ST"
  exit 0
fi
# No telemetry, no colour codes in the captured output.
export SCHEMATHESIS_TELEMETRY=false NO_COLOR=1
exec "$ST" "$@"
