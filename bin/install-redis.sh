#!/usr/bin/env bash
# Installs redis-server (Debian's package), which tern-redis's tests start on a free loopback port of their own.
# Already installed: does nothing. The package lists are updated only when the package is not found.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
tern_apt_install install-redis.sh redis-server redis-tools
tern_apt_no_service redis-server
echo "install-redis.sh: installed $(redis-server --version | cut -d' ' -f1-3)" >&2
