#!/usr/bin/env bash
# The README's second command: install, build, and run every test (one process per TEST_CASE).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
