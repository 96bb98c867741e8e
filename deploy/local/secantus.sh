# shellcheck shell=bash
# SecantusDB: a single-node MongoDB-wire server over WiredTiger (durable, isolated updates, transactions, TTL),
# built once from the Rust crate registry with cargo, run, stopped, probed. Sourced by stack.sh.
# Why this server and not FerretDB or another stand-in: the measured table in README.md ("The local database").

SECANTUS_CRATE="secantus-mdb"
SECANTUS_VERSION="0.5.3-beta.196"
# Built with the patches in deploy/local/secantus/ (each patch file says why), each to the crate named beside it; the
# install directory carries the digest of them all, so a changed patch builds again.
SECANTUS_PATCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/secantus"
SECANTUS_PATCHES=("secantus-commands plan-trial.patch" "secantus-storage partial-type.patch")
SECANTUS_HOME="$STACK_CACHE/secantus-$SECANTUS_VERSION-$(
  for entry in "${SECANTUS_PATCHES[@]}"; do cat "$SECANTUS_PATCH_DIR/${entry#* }"; done | sha256sum | cut -c1-8
)"
SECANTUS_BIN="$SECANTUS_HOME/bin/secantusd-rs"
SECANTUS_RUN_DIR="$STACK_DIR/secantus"
SECANTUS_PID_FILE="$SECANTUS_RUN_DIR/secantus.pid"
SECANTUS_LOG="$SECANTUS_RUN_DIR/logs/secantus.log"
SECANTUS_START_TIMEOUT="${STACK_MONGO_START_TIMEOUT:-60}"
# WiredTiger's cache; the server's own default (4G) is sized for a database host, not a laptop stack.
SECANTUS_CACHE_SIZE="${STACK_MONGO_CACHE_SIZE:-512M}"
# What the one-time build took on a 2-core machine; used to tell the person waiting how long is left.
SECANTUS_EXPECTED_BUILD_SECONDS=450

secantus_installed() { [[ -x "$SECANTUS_BIN" && -f "$SECANTUS_HOME/.installed" ]]; }

# Prints a progress line every STACK_PROGRESS_SECONDS (15) while cargo builds: crates compiled out of those in the lock file, time
# spent, and the time left estimated from the measured build time (the crate count alone misleads: WiredTiger's
# C build is one crate and a third of the time).
secantus_build_progress() {
  local build_log="$1" started="$2" total="$3" done elapsed left
  while sleep "${STACK_PROGRESS_SECONDS:-15}"; do
    done="$(grep -c '^ *Compiling ' "$build_log" 2>/dev/null || true)"
    elapsed=$((SECONDS - started))
    left=$((SECANTUS_EXPECTED_BUILD_SECONDS - elapsed))
    if ((left < 30)); then left=30; fi
    log "building SecantusDB: ${done:-0}/$total crates compiled, $((elapsed / 60))m$((elapsed % 60))s spent, about $((left / 60))m$((left % 60))s left"
  done
}

# Downloads crate $1 at SECANTUS_VERSION from the Rust crate registry into directory $2, checked against the
# registry index's checksum, and unpacks it there.
secantus_fetch_crate() {
  local name="$1" dest="$2" index_path entry sum
  index_path="$(printf '%s/%s/%s' "${name:0:2}" "${name:2:2}" "$name")"
  entry="$(curl -fsSL "https://index.crates.io/$index_path" | grep -E "\"vers\": ?\"${SECANTUS_VERSION//./\\.}\"")" ||
    die "the crate registry's index has no $name $SECANTUS_VERSION"
  sum="$(sed -E 's/.*"cksum": ?"([0-9a-f]{64})".*/\1/' <<<"$entry")"
  curl -fsSL -o "$dest/$name.crate" "https://static.crates.io/crates/$name/$name-$SECANTUS_VERSION.crate" ||
    die "could not download $name $SECANTUS_VERSION from the crate registry"
  echo "$sum  $dest/$name.crate" | sha256sum --check --quiet - || die "$name $SECANTUS_VERSION: checksum mismatch"
  tar xzf "$dest/$name.crate" -C "$dest" && rm "$dest/$name.crate"
}

secantus_do_install() {
  if secantus_installed; then return 0; fi
  rm -rf "$STACK_CACHE"/.staging-secantus.*
  local staging build_log total started progress_pid rc=0 src
  staging="$(make_staging_dir secantus)"
  build_log="$staging/cargo-build.log"
  src="$staging/src"
  log "building SecantusDB $SECANTUS_VERSION ($SECANTUS_CRATE, Rust crate registry, patched) into $SECANTUS_HOME"
  log "this happens once per machine and takes about $((SECANTUS_EXPECTED_BUILD_SECONDS / 60)) min on 2 cores (WiredTiger is compiled from source)"
  mkdir -p "$src"
  secantus_fetch_crate "$SECANTUS_CRATE" "$src"
  # The server's own lock file, with each patched crate taken from its directory (cargo changes only those entries).
  printf '\n[patch.crates-io]\n' >>"$src/$SECANTUS_CRATE-$SECANTUS_VERSION/Cargo.toml"
  local entry crate patch_file
  for entry in "${SECANTUS_PATCHES[@]}"; do
    crate="${entry%% *}"
    patch_file="$SECANTUS_PATCH_DIR/${entry#* }"
    secantus_fetch_crate "$crate" "$src"
    patch --quiet -d "$src/$crate-$SECANTUS_VERSION" -p1 <"$patch_file" ||
      die "the patch $patch_file does not apply to $crate $SECANTUS_VERSION"
    printf '%s = { path = "../%s-%s" }\n' "$crate" "$crate" "$SECANTUS_VERSION" >>"$src/$SECANTUS_CRATE-$SECANTUS_VERSION/Cargo.toml"
  done
  started=$SECONDS
  # The server's Cargo.lock pins every other dependency, so each machine builds the same server. Its manifest asks
  # for a newer rustc than Debian's/rustup's stable here, which builds it fine.
  total=211
  secantus_build_progress "$build_log" "$started" "$total" &
  progress_pid=$!
  CARGO_TARGET_DIR="$staging/target" cargo build --release --ignore-rust-version --bin secantusd-rs \
    --manifest-path "$src/$SECANTUS_CRATE-$SECANTUS_VERSION/Cargo.toml" >"$build_log" 2>&1 || rc=$?
  kill "$progress_pid" 2>/dev/null || true
  wait "$progress_pid" 2>/dev/null || true
  if ((rc != 0)); then
    tail -n 40 "$build_log" >&2
    die "building $SECANTUS_CRATE@$SECANTUS_VERSION failed (log above; full log: $build_log)"
  fi
  mkdir -p "$staging/bin"
  mv "$staging/target/release/secantusd-rs" "$staging/bin/secantusd-rs"
  "$staging/bin/secantusd-rs" --version >/dev/null || die "the built secantusd-rs does not run"
  # Only the binary is needed at run time; the build tree is ~1 GB.
  rm -rf "$staging/target" "$src"
  mv "$build_log" "$staging/build.log"
  publish_staging_dir "$staging" "$SECANTUS_HOME"
  log "SecantusDB $SECANTUS_VERSION installed in $(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s"
}

secantus_install() {
  if secantus_installed; then return 0; fi
  require_cmd cargo "Rust (cargo) is needed once to build the local MongoDB-wire server (https://rustup.rs)"
  require_cmd cmake "cmake is needed once to build WiredTiger (apt-get install cmake)"
  require_cmd curl "curl is needed once to download SecantusDB's source (apt-get install curl)"
  require_cmd patch "patch is needed once to patch SecantusDB (apt-get install patch)"
  with_cache_lock secantus_do_install
}

secantus_pid() { live_pid "$SECANTUS_PID_FILE" "$SECANTUS_RUN_DIR/"; }

secantus_ready() { port_open "$STACK_MONGO_PORT" && mongo_wire_hello "$STACK_MONGO_PORT"; }

secantus_dump_log() {
  log "--- tail of $SECANTUS_LOG ---"
  tail -n 40 "$SECANTUS_LOG" >&2 2>/dev/null || true
}

secantus_wait_ready() {
  local pid="$1" deadline=$((SECONDS + SECANTUS_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      secantus_dump_log
      die "SecantusDB exited during startup"
    fi
    if secantus_ready; then return 0; fi
    sleep 0.2
  done
  secantus_dump_log
  stop_pid SecantusDB "$pid" 5
  rm -f "$SECANTUS_PID_FILE"
  die "SecantusDB not ready after ${SECANTUS_START_TIMEOUT}s (log: $SECANTUS_LOG)"
}

# Fails before anything starts when the port is taken by a foreign process (our own running server is reused).
secantus_preflight() {
  if secantus_pid >/dev/null; then return 0; fi
  if port_open "$STACK_MONGO_PORT"; then die "port $STACK_MONGO_PORT is already used by another process (set STACK_MONGO_PORT)"; fi
}

secantus_start() {
  local pid
  if pid="$(secantus_pid)"; then
    log "SecantusDB already running (pid $pid) on $STACK_HOST:$STACK_MONGO_PORT"
    return 0
  fi
  secantus_install
  mkdir -p "$SECANTUS_RUN_DIR/data" "$SECANTUS_RUN_DIR/logs"
  if [[ -f "$SECANTUS_LOG" ]]; then mv -f "$SECANTUS_LOG" "$SECANTUS_LOG.prev"; fi
  log "starting SecantusDB $SECANTUS_VERSION on $STACK_HOST:$STACK_MONGO_PORT (log: $SECANTUS_LOG)"
  # An explicit (empty) config file: no secantusd.toml from the user's home or /etc changes the local stack.
  : >"$SECANTUS_RUN_DIR/secantusd.toml"
  spawn_detached "$SECANTUS_LOG" "$SECANTUS_PID_FILE" "$SECANTUS_BIN" \
    --config "$SECANTUS_RUN_DIR/secantusd.toml" \
    --host "$STACK_HOST" \
    --port "$STACK_MONGO_PORT" \
    --storage-path "$SECANTUS_RUN_DIR/data" \
    --cache-size "$SECANTUS_CACHE_SIZE" \
    --log-level "${STACK_MONGO_LOG_LEVEL:-WARNING}"
  secantus_wait_ready "$(<"$SECANTUS_PID_FILE")"
  log "SecantusDB ready (pid $(<"$SECANTUS_PID_FILE"))"
}

secantus_stop() {
  local pid
  if pid="$(secantus_pid)"; then
    stop_pid SecantusDB "$pid" "${STACK_STOP_TIMEOUT:-20}"
  else
    log "SecantusDB not running"
  fi
  rm -f "$SECANTUS_PID_FILE"
}

secantus_status() {
  local pid
  if pid="$(secantus_pid)" && secantus_ready; then
    printf 'secantus  up    pid=%s port=%s\n' "$pid" "$STACK_MONGO_PORT"
  elif [[ -n "${pid:-}" ]]; then
    printf 'secantus  starting pid=%s port=%s (not answering yet)\n' "$pid" "$STACK_MONGO_PORT"
    return 1
  else
    printf 'secantus  down  port=%s\n' "$STACK_MONGO_PORT"
    return 1
  fi
}
