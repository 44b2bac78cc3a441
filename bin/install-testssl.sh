#!/usr/bin/env bash
# Installs testssl.sh (Debian package testssl.sh, with the openssl it uses): tern-it's TestsslTest scans tern serve
# --tls with it. Already installed: does nothing.
set -euo pipefail

if command -v testssl >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
tern_apt_install install-testssl.sh testssl.sh openssl
echo "install-testssl.sh: installed testssl.sh $(dpkg-query -W -f='${Version}' testssl.sh)" >&2
