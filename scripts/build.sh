#!/usr/bin/env bash
# Configures and builds ciosim into ${BUILD_DIR:-build} (extra arguments go to cmake): everything, or only
# the target ${BUILD_TARGET} and what it needs when that is set.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${BUILD_DIR:-build}"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
