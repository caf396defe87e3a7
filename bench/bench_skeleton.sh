#!/usr/bin/env bash
# ciosim against its raw-SimGrid skeleton (bench/skeleton.cpp) on the same points: IEC, block-cyclic
# Bx = 1, 4-byte entries, Nx the smallest multiple of Np^2 of at least 4 MiB, platform uc3m-2007 with one
# rank per node (platform.nodes = Np; MPI and PVFS both on Myrinet: one star zone). Each program runs
# under /usr/bin/time -v; the table gives wall time and peak RSS of both and their ratio ciosim /
# skeleton (the figure of merit: what ciosim costs on top of SimGrid), both simulated executor times
# (exchanges + pack + write: the skeleton has no inspector) and both simulated run times, so that the two
# can be seen to do the same work.
# (The skeleton's ranks leave a barrier after the open together; iec's leave its inspector about together;
# iec-parametric's start their exchanges as their opens end, one metadata request apart, so the waiting
# moves from before the executor into its exchanges: compare its run times, not its executor times.)
#
# ciosim is bounded: a point whose memory estimate (`ciosim run --dry-run --max-memory`) exceeds the
# limit is not run, a run longer than the time limit is stopped, and a run whose resident memory
# passes the limit is killed; each shows as "out of reach (reason)". The skeleton has the same limits.
# From 32,768 ranks on, both get SimGrid's contexts/guard-size:0 and STACK_KIB KiB stacks (default 64;
# the kernel's limit on memory maps; ciosim through CIOSIM_SIMGRID_CFG). Without guard pages SimGrid
# takes the stacks from the heap, where a reused stack stays resident: memory grows with the actors
# alive at once (ranks and PVFS flow and request actors) times the stack size.
#
# With ALGORITHM=list-io it compares List I/O instead, on the seed-000 study's points (scenarios/
# compare-100mb.toml and compare-500mb.toml: 16 ranks, uc3m-2007, PVFS on Myrinet, block-cyclic 4-byte
# entries, NX entries): the arguments are then block sizes Bx, and the skeleton runs with --list-io Bx.
# List I/O sends no MPI message, so the study's two MPI networks give the same point twice.
#
# Usage: bench/bench_skeleton.sh [BUILD_DIR] [NP ...]   (default: build, 256 1024 4096 16384 65536)
#        ALGORITHM=list-io [NX=26214400] bench/bench_skeleton.sh [BUILD_DIR] [BX ...]   (default: 1 2 4 ... 1024)
# Environment: TIME_LIMIT (seconds per run, default 600), MEM_LIMIT_GIB (default 10), STACK_KIB (64),
# KEEP=DIR (keep each run's results.json, skeleton JSON and /usr/bin/time output there), ALGORITHM (what
# ciosim runs: iec, the default, with the inspector's datatype exchange, iec-parametric, whose plans
# need no messages, like the skeleton, which has no inspector at all, or list-io, above), PAYLOAD (ciosim's run.payload:
# auto, the default, bytes or elided).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
nps=("$@")
time_limit="${TIME_LIMIT:-600}"
mem_gib="${MEM_LIMIT_GIB:-10}"
mem_kib=$((mem_gib * 1024 * 1024))
es=4
algorithm="${ALGORITHM:-iec}"
case "$algorithm" in
  iec | iec-parametric | list-io) ;;
  *) echo "bench_skeleton: ALGORITHM must be iec, iec-parametric or list-io (got '$algorithm')" >&2; exit 2 ;;
esac
if [ "$algorithm" = list-io ]; then
  [ ${#nps[@]} -gt 0 ] || nps=(1 2 4 8 16 32 64 128 256 512 1024)
else
  [ ${#nps[@]} -gt 0 ] || nps=(256 1024 4096 16384 65536)
fi
payload="${PAYLOAD:-auto}"
case "$payload" in
  auto | bytes | elided) ;;
  *) echo "bench_skeleton: PAYLOAD must be auto, bytes or elided (got '$payload')" >&2; exit 2 ;;
esac
platform=platforms/uc3m-2007.toml
out="${KEEP:-$(mktemp -d)}"
mkdir -p "$out"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
[ -x /usr/bin/time ] || { echo "bench_skeleton: /usr/bin/time is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }

# Runs "$@" under /usr/bin/time -v and timeout, killing it if its resident memory passes the limit.
# Writes $2.time (time -v output); returns 124 on timeout, 137 when killed for memory.
bounded() {
  local tag="$1"
  shift
  /usr/bin/time -v -o "$out/$tag.time" timeout "$time_limit" "$@" >"$out/$tag.out" 2>"$out/$tag.err" &
  local pid=$! rc=0 killed=0
  while kill -0 "$pid" 2>/dev/null; do
    local rss
    rss=$(ps -o rss= --ppid "$(pgrep -P "$pid" | head -1 || echo 0)" 2>/dev/null | awk '{s+=$1} END {print s+0}')
    if [ "$rss" -gt "$mem_kib" ]; then
      pkill -KILL -P "$(pgrep -P "$pid" | head -1)" || true
      killed=1
    fi
    sleep 0.5
  done
  wait "$pid" || rc=$?
  [ "$killed" = 1 ] && return 137
  return "$rc"
}

wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ {printf "%d", $2 / 1024}' "$1"; }
why() {
  case "$1" in
    124) echo "over the ${time_limit} s limit" ;;
    137) echo "over the ${mem_gib} GiB memory limit" ;;
    *) tail -1 "$2" | cut -c1-160 ;;
  esac
}

if [ "$algorithm" = list-io ]; then
  nx="${NX:-26214400}"
  printf "List I/O, 16 ranks, Nx = %s (run.payload=%s)\n\n" "$nx" "$payload"
  printf "| Bx | ciosim wall (s) | ciosim peak (MiB) | skeleton wall (s) | skeleton peak (MiB) | wall ratio | run sim. time ciosim / skeleton (s) |\n"
  printf "|---:|---:|---:|---:|---:|---:|---|\n"
  c_sum=0 s_sum=0
  for bx in "${nps[@]}"; do
    rc=0
    bounded "ciosim-bx$bx" "$build/ciosim" run scenarios/compare-100mb.toml -q --set run.algorithm=list-io \
      --set pvfs.server_placement=dedicated --set network.mpi=myrinet --set workload.bx="$bx" --set workload.nx="$nx" --set run.payload="$payload" \
      --out "$out/ciosim-bx$bx" || rc=$?
    if [ "$rc" != 0 ]; then
      printf "| %s | out of reach (%s) | | | | | |\n" "$bx" "$(why "$rc" "$out/ciosim-bx$bx.err")"
      continue
    fi
    rc=0
    # The batch of compare-100mb.toml (hints.listio_batch = 1024, ROMIO's PVFS 1 driver; tables in
    # docs/history/benchmarks-log.md before 2026-11-28 ran with 64).
    bounded "skeleton-bx$bx" "$build/ciosim_skeleton" "$platform" 16 "$nx" "$es" --list-io "$bx" --batch 1024 || rc=$?
    if [ "$rc" != 0 ]; then
      printf "| %s | | | failed (%s) | | | |\n" "$bx" "$(why "$rc" "$out/skeleton-bx$bx.err")"
      continue
    fi
    c_wall=$(wall_of "$out/ciosim-bx$bx.time") s_wall=$(wall_of "$out/skeleton-bx$bx.time")
    c_sum=$(awk "BEGIN {print $c_sum + $c_wall}") s_sum=$(awk "BEGIN {print $s_sum + $s_wall}")
    printf "| %s | %s | %s | %s | %s | %.1f | %s / %s |\n" "$bx" "$c_wall" "$(rss_of "$out/ciosim-bx$bx.time")" \
      "$s_wall" "$(rss_of "$out/skeleton-bx$bx.time")" "$(awk "BEGIN {print $c_wall / $s_wall}")" \
      "$(python3 -c "import json,sys; print('%.6f' % json.load(open(sys.argv[1]))['runs'][0]['sim_time_s'])" "$out/ciosim-bx$bx/results.json")" \
      "$(python3 -c "import json,sys; print('%.6f' % json.load(open(sys.argv[1]))['sim_time_s'])" "$out/skeleton-bx$bx.out")"
  done
  printf "| all | %s | | %s | | %.1f | |\n" "$c_sum" "$s_sum" "$(awk "BEGIN {print $c_sum / ($s_sum > 0 ? $s_sum : 1)}")"
  exit 0
fi

printf "ciosim runs run.algorithm=%s, run.payload=%s\n\n" "$algorithm" "$payload"
printf "| Np | Nx | message | ciosim wall (s) | ciosim peak (MiB) | skeleton wall (s) | skeleton peak (MiB) | wall ratio | memory ratio | executor sim. time ciosim / skeleton (s) | run sim. time ciosim / skeleton (s) |\n"
printf "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
for np in "${nps[@]}"; do
  nx=$((np * np))
  while [ $((nx * es)) -lt 4194304 ]; do nx=$((nx + np * np)); done
  msg=$((nx * es / (2 * np)))
  cfg=()
  sgcfg=""
  if [ "$np" -ge 32768 ]; then
    cfg=(--cfg=contexts/guard-size:0 --cfg=contexts/stack-size:"${STACK_KIB:-64}")
    sgcfg="contexts/guard-size:0;contexts/stack-size:${STACK_KIB:-64}"
  fi
  sets=(--set run.platform=uc3m-2007 --set run.algorithm="$algorithm" --set run.ranks="$np" --set platform.nodes="$np"
        --set workload.kind=block-cyclic --set workload.nx="$nx" --set workload.bx=1
        --set workload.element_size="$es" --set network.mpi=myrinet --set network.io=myrinet
        --set run.payload="$payload" --set pvfs.server_placement=dedicated)
  # ciosim: refused up front when its estimate exceeds the limit, else run bounded.
  c_wall="-" c_rss="-" c_exec="-" c_run="-" c_note=""
  rc=0
  timeout "$time_limit" "$build/ciosim" run scenarios/quickstart.toml -q "${sets[@]}" --dry-run \
    --max-memory "${mem_gib}GiB" >/dev/null 2>"$out/dry-$np.err" || rc=$?
  if [ "$rc" = 124 ]; then
    c_note="out of reach (checking the point alone took over ${time_limit} s)"
  elif [ "$rc" != 0 ]; then
    c_note="out of reach ($(sed -n 's/.*needs about \([0-9.]* [GMK]iB\).*/needs about \1 by its own estimate/p' "$out/dry-$np.err" | head -1))"
  else
    rc=0
    CIOSIM_SIMGRID_CFG="$sgcfg" bounded "ciosim-$np" "$build/ciosim" run scenarios/quickstart.toml -q \
      "${sets[@]}" --out "$out/ciosim-$np" || rc=$?
    if [ "$rc" = 0 ]; then
      c_wall=$(wall_of "$out/ciosim-$np.time")
      c_rss=$(rss_of "$out/ciosim-$np.time")
      c_exec=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]
print('%.6f' % sum(p['time_s'] for p in r['phases'] if p['name'].startswith('exchange') or p['name'] in ('pack','write')))" \
        "$out/ciosim-$np/results.json")
      c_run=$(python3 -c "import json,sys; print('%.6f' % json.load(open(sys.argv[1]))['runs'][0]['sim_time_s'])" \
        "$out/ciosim-$np/results.json")
    else
      c_note="out of reach ($(why "$rc" "$out/ciosim-$np.err"))"
    fi
  fi
  s_wall="-" s_rss="-" s_exec="-" s_run="-" rc=0
  bounded "skeleton-$np" "$build/ciosim_skeleton" "$platform" "$np" "$nx" "$es" "${cfg[@]}" || rc=$?
  if [ "$rc" = 0 ]; then
    s_wall=$(wall_of "$out/skeleton-$np.time")
    s_rss=$(rss_of "$out/skeleton-$np.time")
    s_exec=$(python3 -c "import json,sys; print('%.6f' % json.load(open(sys.argv[1]))['executor_s'])" "$out/skeleton-$np.out")
    s_run=$(python3 -c "import json,sys; print('%.6f' % json.load(open(sys.argv[1]))['sim_time_s'])" "$out/skeleton-$np.out")
  else
    s_wall="failed ($(why "$rc" "$out/skeleton-$np.err"))"
  fi
  if [ -n "$c_note" ]; then
    printf "| %s | %s | %s B | %s | | %s | %s | | | - / %s | - / %s |\n" "$np" "$nx" "$msg" "$c_note" "$s_wall" "$s_rss" \
      "$s_exec" "$s_run"
  elif [ "$s_rss" = "-" ]; then
    printf "| %s | %s | %s B | %s | %s | %s | | | | %s / - | %s / - |\n" "$np" "$nx" "$msg" "$c_wall" "$c_rss" "$s_wall" \
      "$c_exec" "$c_run"
  else
    printf "| %s | %s | %s B | %s | %s | %s | %s | %.1f | %.1f | %s / %s | %s / %s |\n" "$np" "$nx" "$msg" "$c_wall" \
      "$c_rss" "$s_wall" "$s_rss" "$(awk "BEGIN {print $c_wall / $s_wall}")" "$(awk "BEGIN {print $c_rss / $s_rss}")" \
      "$c_exec" "$s_exec" "$c_run" "$s_run"
  fi
done
