#!/usr/bin/env bash
# Installs the Debian 12 packages ciosim builds with (run as root, or with sudo available).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsimgrid-dev libboost-graph-dev libcli11-dev catch2
      nlohmann-json3-dev libtomlplusplus-dev libopenmpi-dev openmpi-bin libmetis-dev help2man pajeng
      python3 python3-matplotlib time)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
