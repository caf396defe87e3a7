#!/usr/bin/env bash
# The README's first command: install, build what the run needs (ciosim and ciosim-mpi; the tests and
# benchmarks are built by scripts/test.sh), and run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_TARGET=ciosim scripts/build.sh
exec build/ciosim run scenarios/quickstart.toml "$@"
