#!/usr/bin/env bash
# Wall time and peak memory of building a platform of N compute nodes and running 4 ranks on it (Block
# I/O, 4 MiB, the quickstart scenario): what the platform costs by itself, since the ranks' work does not
# grow with N. Usage: bench/bench_platform.sh [BUILD_DIR] [N ...]   (default: build, 16 1024 4096 65536)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
nodes=("$@")
[ ${#nodes[@]} -gt 0 ] || nodes=(16 1024 4096 65536)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf "| nodes | networks | wall time (s) | peak RSS (MiB) |\n|---:|---|---:|---:|\n"
for n in "${nodes[@]}"; do
  for nets in "myrinet myrinet" "fast-ethernet myrinet"; do
    set -- $nets
    if ! /usr/bin/time -f "%e %M" -o "$out/time" "$build/ciosim" run scenarios/quickstart.toml -q \
      --set platform.nodes="$n" --set run.algorithm=block --set workload.bx=64 \
      --set network.mpi="$1" --set network.io="$2" --out "$out/r" >/dev/null; then
      printf "| %s | MPI %s, I/O %s | failed | - |\n" "$n" "$1" "$2"
      continue
    fi
    read -r wall rss <"$out/time"
    printf "| %s | MPI %s, I/O %s | %s | %d |\n" "$n" "$1" "$2" "$wall" $((rss / 1024))
    rm -rf "$out/r"
  done
done
