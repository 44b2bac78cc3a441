#!/usr/bin/env bash
# Installs the openssl command (Debian package openssl): the TLS tests make their certificate authority, CRLs and OCSP
# responder with it. Already installed: does nothing.
set -euo pipefail

if command -v openssl >/dev/null 2>&1; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
tern_apt_install install-openssl.sh openssl
echo "install-openssl.sh: installed $(openssl version)" >&2
