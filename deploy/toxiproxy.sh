#!/usr/bin/env bash
# Prints the path of a pinned toxiproxy server (network faults for the chaos suite, test/chaos), built once with
# `go install` into ~/.cache/crm-stack/toxiproxy-<version> and reused afterwards (CI: a clean machine with Go and
# the Go module proxy). With arguments, runs the server with them instead.
#
# Usage: bash deploy/toxiproxy.sh --install-only                 (prints the path of the server)
#        bash deploy/toxiproxy.sh -host 127.0.0.1 -port 8474     (runs it)
set -euo pipefail

# shellcheck source=lib/tools.sh
source "$(dirname "$0")/lib/tools.sh"
VERSION="${TOXIPROXY_VERSION:-v2.12.0}"
DIR="${HOME}/.cache/crm-stack/toxiproxy-${VERSION#v}"
BIN="$DIR/bin/server"

if [[ ! -f "$DIR/.installed" ]]; then
  command -v go >/dev/null || fail "go is needed to build toxiproxy ${VERSION}"
  log "building toxiproxy ${VERSION} with go install into ${DIR} (first run only)"
  rm -rf "$DIR"
  mkdir -p "$DIR/bin"
  GOBIN="$DIR/bin" GOFLAGS=-buildvcs=false go install "github.com/Shopify/toxiproxy/v2/cmd/server@${VERSION}" >&2
  [[ -x "$BIN" ]] || fail "go install built no toxiproxy server"
  # The marker is written last, so an interrupted build is redone, never taken for whole.
  touch "$DIR/.installed"
fi

if [[ "${1:-}" == "--install-only" ]]; then
  echo "$BIN"
  exit 0
fi
exec "$BIN" "$@"
