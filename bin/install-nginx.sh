#!/usr/bin/env bash
# Installs nginx (Debian's package), which the many-node tests start, with a configuration of their own, as the
# round-robin balancer in front of several tern processes. Already installed: does nothing. The package lists are
# updated only when the package is not found.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-nginx.sh: no apt-get here; install nginx and put it on PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo=sudo
fi
install() {
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
    nginx >/dev/null
}
if ! install 2>/dev/null; then
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  install
fi
# Debian may start a system-wide server on port 80 on install; the tests start their own, so it is not needed.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then
  $sudo systemctl disable --now nginx >/dev/null 2>&1 || true
fi
echo "install-nginx.sh: installed $(/usr/sbin/nginx -v 2>&1)" >&2
