#!/bin/sh
# The LAP reproduction of docs/reproduction.md: BIPS3D meshes 1-4, their 8/16/32/64-way partitions,
# loads 100/200/500, two-phase with lap = none/acn/avn (scenarios/lap-mesh1.toml with --set), 5 iterations,
# one rank per host of magerit-2008; then the locality counts of build/ciosim_lap_locality per point.
#
# Usage, from the top of the source tree:
#   scripts/lap-study.sh [BIPS3D_DIR] [OUT_DIR] [RANKS] [MESHES]
# defaults: scenarios/data/bips3d, results/lap-study, "8 16 32 64", "1 2 3 4". Environment: BUILD, the
# folder that holds ciosim and ciosim_lap_locality (default build); JOBS, ciosim run's -j (default 1);
# SETS, more `--set`s for every run, space-separated KEY=VALUE words (the claim ledger's robustness runs).
# BIPS3D_DIR holds meshK/asignacionP (one owner rank per mesh node); the project ships all sixteen in
# scenarios/data/bips3d (its README says where they come from).
# Then: scripts/lap-tables.py OUT_DIR
set -eu
build=${BUILD:-build}
jobs=${JOBS:-1}
extra=""
for kv in ${SETS:-}; do extra="$extra --set $kv"; done
data=${1:-scenarios/data/bips3d}
out=${2:-results/lap-study}
ranks=${3:-8 16 32 64}
meshes=${4:-1 2 3 4}
mkdir -p "$out"
for m in $meshes; do
  case $m in 1) n=47200 ;; 2) n=32888 ;; 3) n=73256 ;; 4) n=289648 ;; *) echo "no mesh $m" >&2; exit 2 ;; esac
  for p in $ranks; do
    part=$data/mesh$m/asignacion$p
    [ -r "$part" ] || { echo "missing $part (use --set workload.graph=... to partition with METIS)" >&2; exit 2; }
    d=$out/mesh$m-p$p
    if [ ! -f "$d/results.json" ]; then
      start=$(date +%s)
      "$build/ciosim" run scenarios/lap-mesh1.toml -q -j "$jobs" --out "$d" --set run.ranks="$p" --set workload.nx="$n" \
        --set workload.partition="$part" $extra
      echo "mesh$m P=$p: $(( $(date +%s) - start )) s" >&2
    fi
    for l in 100 200 500; do
      [ -f "$d/locality-$l.tsv" ] || "$build/ciosim_lap_locality" "$part" "$p" "$l" > "$d/locality-$l.tsv"
    done
  done
done
