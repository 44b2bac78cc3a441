#!/usr/bin/env bash
# Installs headless Chromium (Debian package chromium) that tern-it's status page test loads the page in.
# Already installed: does nothing. Needs root (or sudo) and apt-get; elsewhere install Chromium yourself and put it
# on the PATH, or point TERN_CHROMIUM at its binary.
set -euo pipefail

if [ -n "${TERN_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
tern_apt_install install-chromium.sh chromium
echo "install-chromium.sh: installed $(chromium --version 2>/dev/null | head -1)" >&2
