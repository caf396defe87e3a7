#!/usr/bin/env bash
# The validation matrix: calibrates this machine (ciosim calibrate), then validates every technique
# against real MPI on it (ciosim validate) for Bx in {1, 64, 1024}, a 16 MiB and a 256 MiB block-cyclic
# vector of 4-byte entries, on 2 ranks and on 4, 8 and 16 where the machine has the cores, and prints
# per-phase predicted / measured / error tables and a summary: median, p90 and worst |error| of the totals
# and of the phases of at least 1 ms (bench/validation_summary.py). A benchmark, not a test: nothing is
# asserted; docs/validation.md keeps its latest output with the machine, the date and the load.
#
# Usage: bench/validation_matrix.sh [BUILD_DIR]   (default build)
# Environment (each optional):
#   OUT=DIR          where everything goes (default results/validation-matrix)
#   PLATFORM=FILE    a calibration to use instead of calibrating again
#   CAL_RUNS=3       independent calibration runs merged (ciosim calibrate --runs; refused beyond 2x spread)
#   RANKS="2 4"      rank counts (default 2, then 4, 8, 16 up to the hardware threads)
#   SIZES_MIB="16"   vector sizes in MiB (default "16 256")
#   BX="1 64 1024"   block sizes in entries
#   REPEAT=3         timed real runs per point (medians; ciosim validate --repeat)
#   TECHNIQUES="iec block"  (default: all ten)
#   MAX_CALLS=N      skip a point whose technique makes more than N file calls per rank, one per block
#                    (independent, and list-io's regions): default 4194304; each skip is listed
#   FILESYSTEM=local the calibrated platform's file-system model to predict with (default: the platform's
#                    own, pvfs: one I/O server; local: the node's disk behind its page cache)
#   REFERENCE_MAX_MIB=N  run the MPI library's own write_all (validate's reference) only up to N MiB
#                    (default 16): validate runs it again for every technique point of a workload, and at
#                    256 MiB, Bx = 1, one OMPIO write_all of the 33 M-block view took minutes on 2 cores
#   CPU_STEPS=1      also time each CPU charge's code (ciosim validate --cpu-steps: one more untimed run
#                    per point; a table per point of the work charged at each site against the real time)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${OUT:-results/validation-matrix}"
threads=$(nproc)
ranks="${RANKS:-}"
if [ -z "$ranks" ]; then
  ranks="2"
  for n in 4 8 16; do [ "$n" -le "$threads" ] && ranks="$ranks $n"; done
fi
sizes="${SIZES_MIB:-16 256}"
bxs="${BX:-1 64 1024}"
repeat="${REPEAT:-3}"
techniques="${TECHNIQUES:-iec iec-parametric block two-phase list-io independent gathered view-based multiple-phase sequential}"
max_calls="${MAX_CALLS:-4194304}"
reference_max="${REFERENCE_MAX_MIB:-16}"
cal_runs="${CAL_RUNS:-3}"
mkdir -p "$out"
: >"$out/skipped.txt"
{
  echo "machine: $(uname -m), $threads hardware threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"

platform="${PLATFORM:-}"
if [ -z "$platform" ]; then
  platform="$out/platform.toml"
  echo "calibrating (ciosim calibrate -n 2 --runs $cal_runs) into $platform" >&2
  # Independent runs merged; refused (and the matrix stopped) when they disagree by more than 2x.
  "$build/ciosim" calibrate -n 2 --runs "$cal_runs" --out "$platform" -q >"$out/calibrate.txt"
fi

for np in $ranks; do
  for mib in $sizes; do
    nx=$((mib * 1048576 / 4))
    for bx in $bxs; do
      algs=""
      for t in $techniques; do
        calls=$((nx / np / bx))
        if { [ "$t" = independent ] || [ "$t" = list-io ]; } && [ "$calls" -gt "$max_calls" ]; then
          echo "$t, $np ranks, $mib MiB, Bx = $bx: $calls file regions per rank (more than MAX_CALLS = $max_calls)" >>"$out/skipped.txt"
          continue
        fi
        algs="${algs:+$algs,}$t"
      done
      [ -n "$algs" ] || continue
      dir="$out/np$np-${mib}mib-bx$bx"
      extra=()
      [ "$mib" -le "$reference_max" ] || extra=(--no-reference)
      [ -z "${CPU_STEPS:-}" ] || extra+=(--cpu-steps)
      echo "validating $np ranks, $mib MiB, Bx = $bx: $algs" >&2
      "$build/ciosim" validate bench/validation-matrix.toml -n "$np" --repeat "$repeat" -q --out "$dir" "${extra[@]}" \
        --set "run.platform=$platform" --set "run.algorithm=[$algs]" --set "workload.nx=$nx" \
        --set "workload.bx=$bx" ${FILESYSTEM:+--set "platform.filesystem=$FILESYSTEM"} >"$dir.txt" 2>&1 ||
        echo "(ciosim validate exited $?: see $dir.txt)" >&2
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
python3 bench/validation_summary.py "$out"
