#!/usr/bin/env bash
# Installs testssl.sh (Debian package testssl.sh, with the openssl it uses): tern-it's TestsslTest scans tern serve
# --tls with it. Already installed: does nothing.
set -euo pipefail

if command -v testssl >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-testssl.sh: testssl.sh is missing; install it with your package manager (Debian: apt-get install testssl.sh)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends testssl.sh openssl >/dev/null 2>&1; then
  apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends testssl.sh openssl >/dev/null
fi
echo "install-testssl.sh: installed testssl.sh $(dpkg-query -W -f='${Version}' testssl.sh)" >&2
