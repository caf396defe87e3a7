#!/usr/bin/env python3
"""Markdown tables of the LAP reproduction (scripts/lap-study.sh) from its results and locality counts.

Usage: scripts/lap-tables.py [OUT_DIR=results/lap-study]

Reads OUT_DIR/meshK-pP/results.json (ciosim run) and OUT_DIR/meshK-pP/locality-L.tsv
(build/ciosim_lap_locality). Times are simulated seconds summed over the kernel's 5 iterations (phase =
maximum over ranks). Checks every point verified and 5 * (meta + data messages) of the locality count
equal to the run's Isend count, so the counts describe the run.
"""
import csv
import glob
import json
import os
import re
import sys

LAPS = ["none", "acn", "avn"]


def phase(run, *names):
    for p in run["phases"]:
        if p["name"] in names:
            return p["time_s"]
    return 0.0


def pct(new, old):
    return f"{100.0 * (new - old) / old:+.1f} %" if old else "—"


def load_points(out, strict=True):
    """(mesh, P, load, lap) -> {"run", "loc"}. A point not verified raises RuntimeError; a locality count that
    disagrees with its run's Isend count too when strict, else it is a warning."""
    pts = {}
    for d in sorted(glob.glob(os.path.join(out, "mesh*-p*"))):
        m = re.search(r"mesh(\d+)-p(\d+)$", d)
        mesh, P = int(m.group(1)), int(m.group(2))
        with open(os.path.join(d, "results.json")) as f:
            runs = json.load(f)["runs"]
        for r in runs:
            if not r["file_verified"]:
                raise RuntimeError(f"{d}: a point is not verified")
            load, lap = int(r["params"]["workload.load"]), r["params"]["hints.lap"]
            pts[(mesh, P, load, lap)] = {"run": r}
        for load in (100, 200, 500):
            with open(os.path.join(d, f"locality-{load}.tsv")) as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    p = pts[(mesh, P, load, row["lap"])]
                    p["loc"] = row
                    isends = p["run"]["calls"]["isend"]
                    expect = 5 * (int(row["meta_msgs"]) + int(row["data_msgs"]))
                    if isends != expect:
                        what = (f"mesh{mesh} P={P} load {load} {row['lap']}: Isend {isends} != "
                                f"5 x (meta + data) = {expect}")
                        if strict:
                            raise RuntimeError(what)
                        print(f"warning: {what}", file=sys.stderr)
    return pts


def main(out):
    try:
        pts = load_points(out, strict=False)
    except (RuntimeError, OSError) as e:
        sys.exit(str(e))
    keys = sorted({k[:3] for k in pts})
    print("Times (simulated s over 5 iterations; ACN and AVN as change against the default):\n")
    print("| mesh | P | load | total | ACN | AVN | st6 | ACN | AVN | st7 | ACN | AVN | st3 ACN / AVN |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in keys:
        n, a, v = (pts[k + (l,)]["run"] for l in LAPS)
        cells = [str(k[0]), str(k[1]), str(k[2])]
        for names, fmt in ((None, "{:.4f}"), (("st6_metadata_exchange", "metadata_exchange"), "{:.3f} ms"),
                           (("st7_exchange", "exchange"), "{:.4f}")):
            f = (lambda r: r["sim_time_s"]) if names is None else (lambda r, names=names: phase(r, *names))
            shown = f(n) * (1e3 if "ms" in fmt else 1)
            cells += [fmt.format(shown), pct(f(a), f(n)), pct(f(v), f(n))]
        cells.append(f"{phase(a, 'st3_lap') * 1e3:.1f} / {phase(v, 'st3_lap') * 1e3:.1f} ms")
        print("| " + " | ".join(cells) + " |")
    print("\nData and messages of one write_all (the locality count; bytes moved = sent to another rank):\n")
    print("| mesh | P | load | file MiB | kept local: default | ACN | AVN | moved MiB: default | ACN | AVN "
          "| msgs between ranks: default | ACN | AVN | Isend (run, 5 it.) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in keys:
        locs = [pts[k + (l,)]["loc"] for l in LAPS]
        total = int(locs[0]["local_bytes"]) + int(locs[0]["remote_bytes"])
        cells = [str(k[0]), str(k[1]), str(k[2]), f"{total / 2**20:.1f}"]
        cells += [f"{100.0 * int(x['local_bytes']) / total:.1f} %" for x in locs]
        cells += [f"{int(x['remote_bytes']) / 2**20:.2f}" for x in locs]
        cells += [x["remote_msgs"] for x in locs]
        cells.append(" / ".join(str(pts[k + (l,)]["run"]["calls"]["isend"]) for l in LAPS))
        print("| " + " | ".join(cells) + " |")
    print("\nThe gain against the rank count (total time, ACN / AVN, change against the default):\n")
    ranks = sorted({k[1] for k in keys})
    print("| mesh | load | " + " | ".join(f"P = {P}" for P in ranks) + " |")
    print("|---|---:|" + "---:|" * len(ranks))
    for mesh, load in sorted({(k[0], k[2]) for k in keys}):
        cells = [str(mesh), str(load)]
        for P in ranks:
            if (mesh, P, load, "none") not in pts:
                cells.append("—")
                continue
            n, a, v = (pts[(mesh, P, load, l)]["run"]["sim_time_s"] for l in LAPS)
            cells.append(f"{pct(a, n)} / {pct(v, n)}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/lap-study")
