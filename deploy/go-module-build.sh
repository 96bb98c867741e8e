# shellcheck shell=bash
# Builds Go programs from their published modules through the Go module proxy (the only way to get them here:
# release binaries are not reachable) into a versioned folder of ~/.cache/crm-stack, once per machine. Used by
# deploy/validate-chart.sh (helm) and deploy/cluster (Kubernetes, CoreDNS, metrics-server, ...). Sourced; needs
# log/fail from the caller.

# go_module_build <cache dir> <module@version> <ldflags> <prepare function or ""> <package...>
# Downloads the module, copies it into a writable tree, runs the prepare function there (to edit go.mod), builds
# the packages as static binaries into <cache dir>/bin and writes <cache dir>/.installed last. A dir already holding
# .installed is reused as it is; an interrupted build never counts (it happens in a staging dir renamed at the end).
go_module_build() {
  local dest="$1" module="$2" ldflags="$3" prepare="$4"
  shift 4
  if [[ -f "$dest/.installed" ]]; then return 0; fi
  command -v go >/dev/null || fail "go is needed to build ${module}"
  local parent work dir started=$SECONDS
  parent="$(dirname "$dest")"
  mkdir -p "$parent"
  work="$(mktemp -d "$parent/.build-$(basename "$dest").XXXXXX")"
  log "building ${module} ($*) with $(go env GOVERSION) from the Go module proxy (once per machine)"
  dir="$(cd "$work" && GOFLAGS=-mod=mod GOWORK=off go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -n "$dir" && -d "$dir" ]] || fail "could not download ${module} from the Go module proxy"
  cp -r "$dir" "$work/src"
  chmod -R u+w "$work/src"
  if [[ -n "$prepare" ]]; then (cd "$work/src" && "$prepare") || fail "preparing ${module} failed"; fi
  mkdir -p "$work/out/bin"
  (cd "$work/src" && CGO_ENABLED=0 GOWORK=off GOTOOLCHAIN=local GOFLAGS="-mod=mod -buildvcs=false" \
    go build -trimpath -ldflags "-s -w $ldflags" -o "$work/out/bin/" "$@") >&2 || fail "go build of ${module} failed"
  date -u +%FT%TZ >"$work/out/.installed"
  rm -rf "$dest"
  mv "$work/out" "$dest"
  rm -rf "$work"
  log "built ${module} in $((SECONDS - started)) s"
}
