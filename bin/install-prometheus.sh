#!/usr/bin/env bash
# Installs the Prometheus server (Debian package prometheus) that tern-it's metrics test scrapes Tern with.
# Already installed: does nothing. Needs root (or sudo) and apt-get; elsewhere install Prometheus yourself and put
# it on the PATH, or point TERN_PROMETHEUS at its binary.
set -euo pipefail

if [ -n "${TERN_PROMETHEUS:-}" ] || command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
tern_apt_install install-prometheus.sh prometheus
tern_apt_no_service prometheus
echo "install-prometheus.sh: installed $(prometheus --version 2>&1 | head -1)" >&2
