#!/usr/bin/env bash
# Checks that the skeleton (bench/skeleton.cpp) is faithful: on the same point (IEC, block-cyclic Bx = 1,
# 1 Mi 1-byte entries, uc3m-2007 with one rank per node) ciosim's executor phases and the skeleton's
# must agree: open, pack, write and close within 1 % (the slowest rank's time, results.json's phase
# time); each exchange must lie between ciosim's fastest and slowest rank's times (1 % margin). ciosim's
# ranks leave the inspector a few microseconds apart and the two ranks of a pair keep that lag in every
# exchange (the early one waits, or its eager message lands before its partner asks), while the
# skeleton's ranks leave a barrier together: every pair takes the lone-pair time, which lies between.
# With a block size BX it checks the List I/O skeleton (--list-io BX) instead, on 1 Mi 4-byte entries
# block-cyclic on NP ranks (PVFS on Myrinet, as the seed-000 study): no exchange and no barrier lag, so
# every phase and the run's simulated time must agree to 1e-9. The skeleton's servers have hosts of their
# own, so ciosim runs with pvfs.server_placement = dedicated beside it (uc3m-2007 puts them on the nodes);
# the skeleton sends compare-100mb.toml's 1024 regions per request (hints.listio_batch, ROMIO's PVFS 1 driver).
# Usage: bench/skeleton_check.sh BUILD_DIR NP [BX]   (a ctest; exit 1 on a mismatch)
set -euo pipefail
cd "$(dirname "$0")/.."
build="$1"
np="$2"
bx="${3:-}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
if [ -n "$bx" ]; then
  "$build/ciosim" run scenarios/compare-100mb.toml -q --set run.algorithm=list-io --set network.mpi=myrinet \
    --set pvfs.server_placement=dedicated \
    --set run.ranks="$np" --set workload.nx=1048576 --set workload.bx="$bx" --out "$out/r" >/dev/null
  "$build/ciosim_skeleton" platforms/uc3m-2007.toml "$np" 1048576 4 --list-io "$bx" --batch 1024 >"$out/skeleton.json"
  python3 - "$out/r/results.json" "$out/skeleton.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
skeleton = json.load(open(sys.argv[2]))
pairs = [("run", run["sim_time_s"], skeleton["sim_time_s"])]
pairs += [(p["name"], p["time_s"], skeleton["phases"].get(p["name"], -1.0)) for p in run["phases"]]
bad = 0
for name, c, s in pairs:
    ok = abs(c - s) <= 1e-9 * max(abs(c), 1e-12)
    bad += not ok
    print(f"{name:6} ciosim {c:.12f} s  skeleton {s:.12f} s  {'ok' if ok else 'MISMATCH'}")
sys.exit(1 if bad or len(run["phases"]) != len(skeleton["phases"]) else 0)
PY
  exit
fi
"$build/ciosim" run scenarios/quickstart.toml -q --set run.platform=uc3m-2007 --set run.algorithm=iec \
  --set pvfs.server_placement=dedicated \
  --set run.ranks="$np" --set platform.nodes="$np" --set workload.nx=1048576 --set workload.bx=1 \
  --set workload.element_size=1 --out "$out/r" >/dev/null
"$build/ciosim_skeleton" platforms/uc3m-2007.toml "$np" 1048576 1 >"$out/skeleton.json"
python3 - "$out/r/results.json" "$out/skeleton.json" <<'PY'
import json, sys
phases = json.load(open(sys.argv[1]))["runs"][0]["phases"]
ciosim = {p["name"]: (min(p["ranks"]["time_s"]), max(p["ranks"]["time_s"])) if p["name"].startswith("exchange")
          else (p["time_s"], p["time_s"]) for p in phases}
skeleton = json.load(open(sys.argv[2]))["phases"]
bad = 0
for name, t in skeleton.items():
    if name == "inspector":
        continue
    lo, hi = ciosim[name]
    ok = 0.99 * lo <= t <= 1.01 * hi
    bad += not ok
    span = f"{lo:.9f}" if lo == hi else f"{lo:.9f}..{hi:.9f}"
    print(f"{name:10} ciosim {span} s  skeleton {t:.9f} s  {'ok' if ok else 'MISMATCH'}")
sys.exit(1 if bad else 0)
PY
