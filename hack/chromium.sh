#!/usr/bin/env bash
# chromium.sh installs Debian's chromium, the headless browser the dashboard's page tests drive, when it is
# missing (idempotent: nothing happens on a machine that has it). It prints apt's progress: the package and
# its libraries are a few hundred megabytes.
set -euo pipefail

for c in chromium chromium-browser; do
  if command -v "$c" >/dev/null; then
    exit 0
  fi
done

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "[chromium] installing Debian's chromium (apt-get update, then apt-get install)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends chromium
command -v chromium >&2
