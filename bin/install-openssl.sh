#!/usr/bin/env bash
# Installs the openssl command (Debian package openssl): the TLS tests make their certificate authority, CRLs and OCSP
# responder with it. Already installed: does nothing.
set -euo pipefail

if command -v openssl >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-openssl.sh: openssl is missing; install it with your package manager (Debian: apt-get install openssl)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get -o DPkg::Lock::Timeout=600 install -y -q openssl >/dev/null 2>&1; then
  apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -q openssl >/dev/null
fi
echo "install-openssl.sh: installed $(openssl version)" >&2
