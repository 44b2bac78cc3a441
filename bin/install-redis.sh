#!/usr/bin/env bash
# Installs redis-server (Debian's package), which tern-redis's tests start on a free loopback port of their own.
# Already installed: does nothing. The package lists are updated only when the package is not found.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-redis.sh: no apt-get here; install redis-server (7.0 or newer) and put it on PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo=sudo
fi
install() {
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
    redis-server redis-tools >/dev/null
}
if ! install 2>/dev/null; then
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  install
fi
# Debian starts a system-wide server on port 6379 on install; the tests start their own, so it is not needed.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
  $sudo systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
echo "install-redis.sh: installed $(redis-server --version | cut -d' ' -f1-3)" >&2
