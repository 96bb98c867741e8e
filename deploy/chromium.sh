#!/usr/bin/env bash
# Prints the path of the Chromium the browser tests drive with playwright-core (test/e2e/api-docs-browser.test.ts).
# Playwright's own browser download is not reachable from every machine; Debian's `chromium` package is: it is
# installed with apt-get the first time (as root, or with passwordless sudo), serialised by a lock, then reused.
# CHROMIUM_PATH names another binary instead.
#
# Usage: bash deploy/chromium.sh
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/tools.sh
source "$ROOT/deploy/lib/tools.sh"

find_chromium() {
  local candidate
  for candidate in "${CHROMIUM_PATH:-}" chromium chromium-browser; do
    [[ -n "$candidate" ]] && command -v "$candidate" && return 0
  done
  return 1
}

if find_chromium; then exit 0; fi

command -v apt-get >/dev/null || fail "no chromium and no apt-get: install Chromium and set CHROMIUM_PATH"
SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null && sudo -n true 2>/dev/null || fail "installing chromium needs root (or passwordless sudo): apt-get install chromium, or set CHROMIUM_PATH"
  SUDO=(sudo -n)
fi
mkdir -p "${HOME}/.cache/crm-stack"
(
  flock 9
  if ! find_chromium >/dev/null; then
    log "installing Debian's chromium with apt-get (first run only)"
    # The package lists may be missing on a fresh machine (or too old to name the current version).
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium >&2 ||
      { "${SUDO[@]}" apt-get update -qq >&2 && "${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium >&2; } ||
      fail "apt-get could not install chromium"
  fi
) 9>"${HOME}/.cache/crm-stack/.chromium.lock"
find_chromium || fail "chromium was installed but is not on PATH"
