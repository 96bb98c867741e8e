# shellcheck shell=bash
# FerretDB (MongoDB wire protocol) on its SQLite backend: build from the Go
# module proxy, run, stop, report status. Sourced by stack.sh.

FERRETDB_VERSION="v1.24.2"
FERRETDB_MODULE="github.com/FerretDB/FerretDB"
FERRETDB_HOME="$STACK_CACHE/ferretdb-$FERRETDB_VERSION"
FERRETDB_BIN="$FERRETDB_HOME/bin/ferretdb"
FERRETDB_RUN_DIR="$STACK_DIR/ferretdb"
FERRETDB_PID_FILE="$FERRETDB_RUN_DIR/ferretdb.pid"
FERRETDB_LOG="$FERRETDB_RUN_DIR/logs/ferretdb.log"
FERRETDB_START_TIMEOUT="${STACK_FERRET_START_TIMEOUT:-30}"

ferretdb_installed() { [[ -f "$FERRETDB_HOME/.installed" ]]; }

# `go install ...@version` is not usable: it reads the module's @v/list for
# deprecation notices and the proxy reachable here answers 403 on it. So the
# module zip is fetched with `go mod download` and built from a copy.
ferretdb_do_install() {
  if ferretdb_installed; then return 0; fi
  rm -rf "$STACK_CACHE"/.staging-ferretdb.*
  local staging src_dir
  staging="$(make_staging_dir ferretdb)"
  log "building FerretDB $FERRETDB_VERSION into $FERRETDB_HOME (Go module proxy, ~4 min the first time on 2 cores)"
  # Run outside any module so go.work/go.mod of the caller cannot interfere.
  src_dir="$(cd "$staging" && GOWORK=off go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION" |
    sed -n 's/^[[:space:]]*"Dir":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p')"
  [[ -n "$src_dir" && -d "$src_dir" ]] || die "go mod download $FERRETDB_MODULE@$FERRETDB_VERSION failed"
  # The module cache is read-only; the build needs to write version.txt.
  cp -r "$src_dir" "$staging/src"
  chmod -R u+w "$staging/src"
  # Embedded at build time; an empty file makes the binary panic at startup.
  printf '%s\n' "$FERRETDB_VERSION" >"$staging/src/build/version/version.txt"
  mkdir -p "$staging/bin"
  (cd "$staging/src" && GOWORK=off GOFLAGS=-buildvcs=false go build -trimpath -o "$staging/bin/ferretdb" ./cmd/ferretdb) >&2 ||
    die "go build of FerretDB failed (see output above)"
  "$staging/bin/ferretdb" --version >/dev/null || die "built ferretdb binary does not run"
  # Sources are only needed for the build; keep the cache small.
  rm -rf "$staging/src"
  publish_staging_dir "$staging" "$FERRETDB_HOME"
  log "FerretDB $FERRETDB_VERSION installed"
}

ferretdb_install() {
  if ferretdb_installed; then return 0; fi
  require_cmd go "Go is needed once to build FerretDB (https://go.dev/dl/)"
  with_cache_lock ferretdb_do_install
}

ferretdb_pid() { live_pid "$FERRETDB_PID_FILE" "$FERRETDB_RUN_DIR/"; }

# Sends a real MongoDB `ping` (OP_MSG) and checks for ok:1. Needs only the
# python3 standard library; prints nothing. Exit 2 = python3 unavailable.
ferretdb_wire_ping() {
  command -v python3 >/dev/null 2>&1 || return 2
  python3 - "$STACK_MONGO_PORT" <<'PY'
import socket, struct, sys

def cstr(s):
    return s.encode() + b"\0"

body = b"\x10" + cstr("ping") + struct.pack("<i", 1)
body += b"\x02" + cstr("$db") + struct.pack("<i", 6) + cstr("admin")
doc = struct.pack("<i", len(body) + 5) + body + b"\0"
msg = struct.pack("<I", 0) + b"\0" + doc  # flagBits, section kind 0, body
header = struct.pack("<iiii", 16 + len(msg), 1, 0, 2013)  # OP_MSG
try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3) as s:
        s.sendall(header + msg)
        buf = b""
        while len(buf) < 4 or len(buf) < struct.unpack("<i", buf[:4])[0]:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
except OSError:
    sys.exit(1)
sys.exit(0 if b"\x01ok\x00" + struct.pack("<d", 1.0) in buf else 1)
PY
}

# Best available readiness probe: wire-protocol ping, else the debug
# endpoint's liveness probe (true once the listener is up), else TCP.
ferretdb_ready() {
  local rc=0
  port_open "$STACK_MONGO_PORT" || return 1
  ferretdb_wire_ping || rc=$?
  if ((rc != 2)); then return "$rc"; fi
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$STACK_FERRET_DEBUG_PORT/debug/livez"
  fi
}

ferretdb_wait_ready() {
  local pid="$1" deadline=$((SECONDS + FERRETDB_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      ferretdb_dump_log
      die "FerretDB exited during startup"
    fi
    if ferretdb_ready; then return 0; fi
    sleep 0.3
  done
  ferretdb_dump_log
  # Do not leave a half-started server behind (CI would keep it forever).
  stop_pid FerretDB "$pid" 5
  rm -f "$FERRETDB_PID_FILE"
  die "FerretDB not ready after ${FERRETDB_START_TIMEOUT}s (log: $FERRETDB_LOG)"
}

ferretdb_dump_log() {
  log "--- tail of $FERRETDB_LOG ---"
  tail -n 40 "$FERRETDB_LOG" >&2 2>/dev/null || true
}

# Fails before anything is started when our ports are taken by a foreign
# process (a running instance of ours is fine: start will reuse it).
ferretdb_preflight() {
  local port
  if ferretdb_pid >/dev/null; then return 0; fi
  for port in "$STACK_MONGO_PORT" "$STACK_FERRET_DEBUG_PORT"; do
    if port_open "$port"; then
      die "port $port is already used by another process (set STACK_MONGO_PORT / STACK_FERRET_DEBUG_PORT)"
    fi
  done
}

ferretdb_start() {
  local pid
  if pid="$(ferretdb_pid)"; then
    log "FerretDB already running (pid $pid) on 127.0.0.1:$STACK_MONGO_PORT"
    return 0
  fi
  ferretdb_install
  # FerretDB refuses a SQLite directory that does not exist yet.
  mkdir -p "$FERRETDB_RUN_DIR/data" "$FERRETDB_RUN_DIR/state" "$FERRETDB_RUN_DIR/logs"
  if [[ -f "$FERRETDB_LOG" ]]; then mv -f "$FERRETDB_LOG" "$FERRETDB_LOG.prev"; fi
  log "starting FerretDB $FERRETDB_VERSION on 127.0.0.1:$STACK_MONGO_PORT (log: $FERRETDB_LOG)"
  spawn_detached "$FERRETDB_LOG" "$FERRETDB_PID_FILE" "$FERRETDB_BIN" \
    --handler=sqlite \
    --sqlite-url="file:$FERRETDB_RUN_DIR/data/" \
    --state-dir="$FERRETDB_RUN_DIR/state" \
    --listen-addr="127.0.0.1:$STACK_MONGO_PORT" \
    --debug-addr="127.0.0.1:$STACK_FERRET_DEBUG_PORT" \
    --telemetry=disable \
    --log-level="${STACK_FERRET_LOG_LEVEL:-WARN}"
  ferretdb_wait_ready "$(<"$FERRETDB_PID_FILE")"
  log "FerretDB ready (pid $(<"$FERRETDB_PID_FILE"))"
}

ferretdb_stop() {
  local pid
  if pid="$(ferretdb_pid)"; then
    stop_pid FerretDB "$pid" "${STACK_STOP_TIMEOUT:-20}"
  else
    log "FerretDB not running"
  fi
  rm -f "$FERRETDB_PID_FILE"
}

# Prints one status line; returns 0 when up.
ferretdb_status() {
  local pid
  if pid="$(ferretdb_pid)" && ferretdb_ready; then
    printf 'ferretdb  up    pid=%s port=%s\n' "$pid" "$STACK_MONGO_PORT"
  elif [[ -n "${pid:-}" ]]; then
    printf 'ferretdb  starting pid=%s port=%s (not answering yet)\n' "$pid" "$STACK_MONGO_PORT"
    return 1
  else
    printf 'ferretdb  down  port=%s\n' "$STACK_MONGO_PORT"
    return 1
  fi
}
