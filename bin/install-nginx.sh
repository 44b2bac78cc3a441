#!/usr/bin/env bash
# Installs nginx (Debian's package), which the many-node tests start, with a configuration of their own, as the
# round-robin balancer in front of several tern processes. Already installed: does nothing. The package lists are
# updated only when the package is not found.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
tern_apt_install install-nginx.sh nginx
tern_apt_no_service nginx
echo "install-nginx.sh: installed $(/usr/sbin/nginx -v 2>&1)" >&2
