#!/usr/bin/env bash
# The work estimate against the simulation's wall time (config/work_estimate.hpp; docs/benchmarks.md, "The
# work of a point"): single points of the quickstart scenario (4 ranks, 4 MiB, uc3m-2007-like quickstart
# platform) and a few larger or harder ones, each simulated alone with -q; prints a Markdown table of the
# estimate `run --dry-run` prints, the wall time and the events per second it implies.
# Usage: bench/work_estimate.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
ciosim="$build/ciosim"
scenario=scenarios/quickstart.toml
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "| point | estimate (events) | wall (s) | events/s |"
echo "|---|---:|---:|---:|"
point() {
  local label="$1"; shift
  local est
  est=$("$ciosim" run "$scenario" --dry-run "$@" | grep -o "work ~ [^ ]*" | head -1 | cut -d' ' -f3)
  local t0 t1
  t0=$(date +%s.%N)
  "$ciosim" run -q "$scenario" --out "$tmp/out" --max-work 0 "$@" >/dev/null
  t1=$(date +%s.%N)
  rm -rf "$tmp/out"
  python3 -c "
est, wall = float('$est'), $t1 - $t0
print(f'| $label | {est:.2g} | {wall:.2f} | {est / wall:.2g} |')"
}
for a in iec two-phase list-io independent view-based gathered multiple-phase block sequential; do
  point "$a, Bx = 1" --set run.algorithm=$a --set workload.bx=1
done
point "independent, Bx = 64" --set run.algorithm=independent --set workload.bx=64
point "view-based, 1 MiB, vb_buffer_size = 1" --set run.algorithm=view-based --set workload.bx=1 \
  --set workload.nx=262144 --set hints.vb_buffer_size=1
point "view-based, vb_buffer_size = 16" --set run.algorithm=view-based --set workload.bx=1 \
  --set hints.vb_buffer_size=16
point "two-phase, cb_buffer_size = 4096" --set run.algorithm=two-phase --set workload.bx=1 \
  --set hints.cb_buffer_size=4096
point "two-phase, 16 ranks, 16 MiB" --set run.algorithm=two-phase --set workload.bx=1 \
  --set workload.nx=4194304 --set run.ranks=16 --set platform.nodes=16
point "list-io, 16 ranks, 16 MiB" --set run.algorithm=list-io --set workload.bx=1 \
  --set workload.nx=4194304 --set run.ranks=16 --set platform.nodes=16
point "independent, 16 MiB" --set run.algorithm=independent --set workload.bx=1 --set workload.nx=4194304
