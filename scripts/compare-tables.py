#!/usr/bin/env python3
"""Markdown tables of a comparative-study run (scenarios/compare-*.toml) from its results.json.

Usage: scripts/compare-tables.py results/compare-100mb/results.json [more results.json ...]

One table per MPI network: rows Bx, columns sim_time_s of each algorithm, plus IEC's executor alone
(sim_time_s minus the inspector phase: what Singh et al., J. Supercomputing 2009, §4.2, plots for IEC).
Every point must be verified.
"""
import json
import sys


def phase(run, name):
    for p in run["phases"]:
        if p["name"] == name:
            return p["time_s"]
    return 0.0


def main(paths):
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        runs = doc["runs"]
        bad = [r for r in runs if not r["file_verified"]]
        if bad:
            sys.exit(f"{path}: {len(bad)} points not verified")
        algos = []
        for r in runs:
            if r["algorithm"] not in algos:
                algos.append(r["algorithm"])
        for net in sorted({r["network_mpi"] for r in runs}, key=lambda n: n != "myrinet"):
            table = {}
            for r in runs:
                if r["network_mpi"] != net:
                    continue
                bx = int(r["params"].get("workload.bx", 0))
                row = table.setdefault(bx, {})
                row[r["algorithm"]] = r["sim_time_s"]
                if r["algorithm"] == "iec":
                    row["iec executor"] = r["sim_time_s"] - phase(r, "inspector")
            cols = [a for a in algos if a != "iec"]
            if "iec" in algos:
                cols = ["iec", "iec executor"] + cols
            print(f"\n{doc['scenario']}: MPI on {net} (simulated seconds)\n")
            print("| Bx | " + " | ".join(cols) + " |")
            print("|---:|" + "---:|" * len(cols))
            for bx in sorted(table):
                cells = [f"{table[bx][c]:.3f}" if c in table[bx] else "-" for c in cols]
                print(f"| {bx} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
