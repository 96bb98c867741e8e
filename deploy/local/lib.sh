# shellcheck shell=bash
# Shared helpers for the local stack scripts: paths, logging, pid files,
# port probes, cache locking. Sourced by stack.sh; not meant to be run.

# Repo root = two levels above this file, so the scripts work from any cwd.
STACK_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Binaries/jars are shared by every clone on the machine (slow to fetch/build).
STACK_CACHE="${CRM_STACK_CACHE:-$HOME/.cache/crm-stack}"
# Per-clone runtime state (pid files, logs, data); .local/ is gitignored.
STACK_DIR="${CRM_STACK_DIR:-$STACK_REPO_ROOT/.local/stack}"

# The address both servers bind and advertise: loopback, unless something outside this host's loopback must reach
# them (the local Kubernetes cluster's pods use the pod bridge's address, deploy/cluster).
STACK_HOST="${STACK_HOST:-127.0.0.1}"
STACK_MONGO_PORT="${STACK_MONGO_PORT:-27027}"
STACK_KAFKA_PORT="${STACK_KAFKA_PORT:-19092}"
STACK_KAFKA_CONTROLLER_PORT="${STACK_KAFKA_CONTROLLER_PORT:-19093}"

# Everything except the final env lines goes to stderr, so that
# `eval "$(stack.sh start)"` only sees the variables.
log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

# Prints KEY=VALUE, single-quoting only when the value could break `eval`
# (plain URLs stay unquoted so dotenv-style readers also accept them).
print_env_line() {
  local key="$1" value="$2"
  if [[ "$value" =~ ^[A-Za-z0-9_./:@,%+=-]*$ ]]; then
    printf '%s=%s\n' "$key" "$value"
  else
    printf "%s='%s'\n" "$key" "${value//\'/\'\\\'\'}"
  fi
}

require_cmd() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found in PATH: $2"
}

# True when something accepts TCP connections on $STACK_HOST:$1.
port_open() {
  timeout 2 bash -c ": </dev/tcp/$STACK_HOST/$1" 2>/dev/null
}

# Prints the pid stored in pid file $1 if that process is alive AND its
# command line contains $2 (guards against a recycled pid after a reboot).
live_pid() {
  local pidfile="$1" needle="$2" pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(<"$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$needle" || return 1
  printf '%s\n' "$pid"
}

# Starts "$@" detached in its own session (survives the calling shell and a
# Ctrl-C in it), output appended to $1. The child writes its own pid to $2
# right before exec'ing the server, so the pid file holds the server's pid
# even when setsid has to fork (it does when run under job control).
spawn_detached() {
  local logfile="$1" pidfile="$2" i
  shift 2
  rm -f "$pidfile"
  # shellcheck disable=SC2016 # $$ and $1 must expand in the child shell
  setsid nohup bash -c 'printf "%s\n" "$$" >"$1.tmp" && mv "$1.tmp" "$1" && shift && exec "$@"' \
    spawn "$pidfile" "$@" >>"$logfile" 2>&1 </dev/null &
  for ((i = 0; i < 50; i++)); do
    [[ -s "$pidfile" ]] && return 0
    sleep 0.1
  done
  die "could not start $1 (no pid file after 5s, see $logfile)"
}

# SIGTERM, wait up to $3 seconds for a clean shutdown, then SIGKILL.
stop_pid() {
  local name="$1" pid="$2" grace="$3" i
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < grace * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { log "$name stopped"; return 0; }
    sleep 0.1
  done
  log "$name did not stop within ${grace}s, sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# Runs "$@" while holding an exclusive lock on the cache, so two clones
# installing at the same time do not build into each other's staging dirs.
with_cache_lock() {
  mkdir -p "$STACK_CACHE"
  if command -v flock >/dev/null 2>&1; then
    (
      flock 9
      "$@"
    ) 9>"$STACK_CACHE/.install.lock"
  else
    "$@"
  fi
}

# Fresh staging dir inside the cache (same filesystem => final mv is atomic).
make_staging_dir() {
  mkdir -p "$STACK_CACHE"
  mktemp -d "$STACK_CACHE/.staging-$1.XXXXXX"
}

# Moves a fully populated staging dir to its final versioned path. The
# marker is written last inside staging, so a half-copied dir never has it.
publish_staging_dir() {
  local staging="$1" final="$2"
  chmod 755 "$staging"
  date -u +%FT%TZ >"$staging/.installed"
  rm -rf "$final"
  mv "$staging" "$final"
}

# Sends a real MongoDB `hello` (OP_MSG) to $STACK_HOST:$1 and checks for ok:1. Needs only the python3 standard
# library (on every machine this stack supports); prints nothing.
mongo_wire_hello() {
  python3 - "$STACK_HOST" "$1" <<'PY'
import socket, struct, sys

def cstr(s):
    return s.encode() + b"\0"

body = b"\x10" + cstr("hello") + struct.pack("<i", 1)
body += b"\x02" + cstr("$db") + struct.pack("<i", 6) + cstr("admin")
doc = struct.pack("<i", len(body) + 5) + body + b"\0"
msg = struct.pack("<I", 0) + b"\0" + doc  # flagBits, section kind 0, body
header = struct.pack("<iiii", 16 + len(msg), 1, 0, 2013)  # OP_MSG
try:
    with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3) as s:
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
