#!/usr/bin/env bash
# Bytes against elided payloads (run.payload) on the same points: each point runs once with
# run.payload = bytes and once with elided, under /usr/bin/time. The table gives, per mode, wall time and peak
# resident memory, the simulated time and whether the file was verified; the simulated times must be equal
# (the script fails otherwise). A point whose bytes run the memory estimate refuses shows as "refused" (what
# elided makes possible).
#
# Usage: bench/bench_payload.sh [BUILD_DIR]   (default: build). The points are the POINTS array below:
# a scenario and its --set overrides.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
points=(
  "bench/two-phase-block3d.toml run.ranks=1024 platform.nodes=1024"
  "scenarios/compare-100mb.toml run.algorithm=block network.mpi=myrinet workload.bx=1024"
  "scenarios/compare-100mb.toml run.algorithm=iec network.mpi=myrinet workload.bx=1024"
  "scenarios/compare-100mb.toml run.algorithm=two-phase network.mpi=myrinet workload.bx=1024"
  "scenarios/compare-100mb.toml run.algorithm=block network.mpi=myrinet workload.nx=268435456 workload.bx=65536"
  "scenarios/compare-100mb.toml run.algorithm=iec network.mpi=myrinet workload.nx=268435456 workload.bx=65536"
  "scenarios/compare-100mb.toml run.algorithm=two-phase network.mpi=myrinet workload.nx=268435456 workload.bx=65536"
  "scenarios/compare-100mb.toml run.algorithm=iec network.mpi=myrinet workload.nx=1073741824 workload.bx=1048576"
  "scenarios/compare-100mb.toml run.algorithm=two-phase network.mpi=myrinet workload.nx=1073741824 workload.bx=1048576"
  "scenarios/compare-100mb.toml run.algorithm=iec network.mpi=myrinet workload.bx=1"
)
printf '%-80s %-7s %9s %10s %14s %s\n' point mode wall_s peak_MiB sim_time_s verified
status=0
for pt in "${points[@]}"; do
  read -r scenario sets <<<"$pt"
  args=()
  for s in $sets; do args+=(--set "$s"); done
  sims=()
  for mode in bytes elided; do
    out="$work/$mode"
    rm -rf "$out"
    if ! "$build/ciosim" run "$scenario" "${args[@]}" --set run.payload=$mode --dry-run -q >/dev/null 2>&1; then
      printf '%-80s %-7s %9s\n' "$(basename "$scenario" .toml) $sets" "$mode" refused
      continue
    fi
    /usr/bin/time -f '%e %M' -o "$work/time" "$build/ciosim" run "$scenario" "${args[@]}" \
      --set run.payload=$mode --out "$out" -q >/dev/null
    read -r wall kib <"$work/time"
    read -r sim ok < <(python3 -c "import json,sys; r=json.load(open('$out/results.json'))['runs'][0]; print(repr(r['sim_time_s']), r['file_verified'])")
    sims+=("$sim")
    printf '%-80s %-7s %9s %10d %14s %s\n' "$(basename "$scenario" .toml) $sets" "$mode" "$wall" $((kib / 1024)) "$sim" "$ok"
  done
  if [ ${#sims[@]} -eq 2 ] && [ "${sims[0]}" != "${sims[1]}" ]; then
    echo "simulated times differ: ${sims[0]} (bytes) vs ${sims[1]} (elided)" >&2
    status=1
  fi
done
exit $status
