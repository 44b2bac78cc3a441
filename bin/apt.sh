# Sourced by the bin/install-*.sh scripts: installs Debian packages for the tests' real parts.
# tern_apt_install SCRIPT PACKAGE...  installs the packages (as root, or through sudo), updating the package lists
#                                     only when an install fails; without apt-get, says what to install and exits 1.
# tern_apt_no_service NAME            stops and disables a system-wide service the package started: the tests start
#                                     their own, on free ports.

tern_apt_install() {
  local script=$1
  shift
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$script: no apt-get here; install $* yourself and put it on PATH" >&2
    exit 1
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
  fi
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  if ! ${sudo[@]+"${sudo[@]}"} "${apt[@]}" install -y -q --no-install-recommends "$@" >/dev/null 2>&1; then
    ${sudo[@]+"${sudo[@]}"} "${apt[@]}" update -q >/dev/null
    ${sudo[@]+"${sudo[@]}"} "${apt[@]}" install -y -q --no-install-recommends "$@" >/dev/null
  fi
}

tern_apt_no_service() {
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
  fi
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$1" 2>/dev/null; then
    ${sudo[@]+"${sudo[@]}"} systemctl disable --now "$1" >/dev/null 2>&1 || true
  fi
}
