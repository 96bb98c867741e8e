#!/usr/bin/env bash
# Regenerates the TypeScript of every contract in proto/ with buf + ts-proto (both from npm).
# With --check, regenerates into a temporary folder and fails when proto/gen differs: CI catches stale code.
set -euo pipefail
cd "$(dirname "$0")"
buf=../node_modules/.bin/buf

"$buf" lint
if [[ "${1:-}" == "--check" ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$buf" generate --output "$tmp"
  if ! diff -r "$tmp/gen" gen >/dev/null; then
    diff -r "$tmp/gen" gen | head -40 >&2
    echo "proto/gen is stale: run npm run proto:gen and commit the result" >&2
    exit 1
  fi
  echo "proto/gen is up to date"
else
  rm -rf gen
  "$buf" generate
  echo "generated proto/gen"
fi
