#!/usr/bin/env bash
# Installs the Prometheus server (Debian package prometheus) that tern-it's metrics test scrapes Tern with.
# Already installed: does nothing. Needs root (or sudo) and apt-get; elsewhere install Prometheus yourself and put
# it on the PATH, or point TERN_PROMETHEUS at its binary.
set -euo pipefail

if [ -n "${TERN_PROMETHEUS:-}" ] || command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-prometheus.sh: no apt-get here; install Prometheus and set TERN_PROMETHEUS to its binary" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
install() {
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
    prometheus >&2
}
if ! apt-cache show prometheus >/dev/null 2>&1; then
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -q >&2
fi
install
# The package starts a system-wide service on :9090 where it can; the tests run their own on a free port.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  $sudo systemctl disable --now prometheus >&2 || true
fi
echo "install-prometheus.sh: installed $(prometheus --version 2>&1 | head -1)" >&2
