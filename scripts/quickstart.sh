#!/usr/bin/env bash
# The README's first command: install, build, and run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/ciosim run scenarios/quickstart.toml "$@"
