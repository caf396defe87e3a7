#!/usr/bin/env python3
"""Markdown tables of the view-based I/O study (docs/reproduction.md: García Blas, Isaila, Singh,
Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008, Figs. 3, 5, 6 and Table II).

Usage: scripts/view-based-tables.py BTIO_DIR COLLPERF_DIR TILE_DIR
  (the --out folders of `ciosim run` on scenarios/btio-fig3.toml, collperf-fig6.toml, tile-fig5.toml;
  give - to skip one)

Reads each results.json: `operation_totals_s` (per kind of operation, the sum of the slowest rank's
times) and `operations` (each one in order). Refuses a run whose file or reads were not verified.
"""
import json
import sys

MIB = 1024 * 1024
CALLS = ["send", "recv", "isend", "irecv", "wait", "waitall", "waitany", "bcast", "barrier", "allreduce", "alltoall",
         "allgather"]


def runs(folder):
    with open(folder + "/results.json") as f:
        out = json.load(f)["runs"]
    for r in out:
        if not r["file_verified"]:
            sys.exit(f"{folder}: run {r['params']} is not verified")
    return out


def by(rs, key):
    table = {}
    for r in rs:
        table.setdefault(key(r), {})[r["algorithm"]] = r
    return table


def first_close(r):
    """The close that ends the first open: BT-IO's reported time ends there, view-based flushes there."""
    for o in r["operations"]:
        if o["name"] == "close":
            return o["time_s"]
    return 0.0


def until_first_close(r):
    ops = r["operations"]
    end = next(i for i, o in enumerate(ops) if o["name"] == "close")
    return sum(o["time_s"] for o in ops[: end + 1])


def btio(folder):
    print("| ranks | write TP | write VB | close VB | write+close TP | write+close VB | read TP | read VB "
          "| reported TP | reported VB | with reads TP | with reads VB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p, t in sorted(by(runs(folder), lambda r: r["ranks"]).items()):
        a, b = t["two-phase"], t["view-based"]
        ta, tb = a["operation_totals_s"], b["operation_totals_s"]
        print(f"| {p} | {ta['write']:.2f} | {tb['write']:.2f} | {tb['close']:.2f} "
              f"| {ta['write'] + ta['close']:.2f} | {tb['write'] + tb['close']:.2f} "
              f"| {ta['read']:.2f} | {tb['read']:.2f} | {until_first_close(a):.1f} | {until_first_close(b):.1f} "
              f"| {sum(o['time_s'] for o in a['operations']):.1f} "
              f"| {sum(o['time_s'] for o in b['operations']):.1f} |")


def collperf(folder):
    rs = runs(folder)
    print("| ranks | variant | write TP (s) | write VB (s) | VB's close (s) | read TP (s) | read VB (s) "
          "| write MB/s TP / VB | read MB/s TP / VB |")
    print("|---|---|---|---|---|---|---|---|---|")
    table = by(rs, lambda r: (r["ranks"], r["params"]["run.sequence"].count("close") == 1))
    for (p, cb), t in sorted(table.items()):
        a, b = t["two-phase"], t["view-based"]
        ta, tb = a["operation_totals_s"], b["operation_totals_s"]
        size = a["bytes"]["file"]
        print(f"| {p} | {'CB' if cb else 'close'} | {ta['write']:.3f} | {tb['write']:.3f} | {first_close(b):.3f} "
              f"| {ta['read']:.3f} | {tb['read']:.3f} | {size / ta['write'] / 1e6:.0f} / {size / tb['write'] / 1e6:.0f} "
              f"| {size / ta['read'] / 1e6:.0f} / {size / tb['read'] / 1e6:.0f} |")
    print()
    print("| call | " + " | ".join(f"{a} {p}" for p in (8, 64) for a in ("TP", "VB")) + " |")
    print("|---|---|---|---|---|")
    for c in CALLS:
        cells = []
        for p in (8, 64):
            t = table.get((p, False))
            for a in ("two-phase", "view-based"):
                cells.append(str(t[a]["calls"].get(c, 0)) if t else "-")
        print(f"| {c} | " + " | ".join(cells) + " |")


def tile(folder):
    print("| ranks | file (MiB) | write TP | write VB | close VB | write+close TP | write+close VB | read TP "
          "| read VB | write MB/s TP / VB | read MB/s TP / VB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p, t in sorted(by(runs(folder), lambda r: r["ranks"]).items()):
        a, b = t["two-phase"], t["view-based"]
        ta, tb = a["operation_totals_s"], b["operation_totals_s"]
        size = a["bytes"]["file"]
        print(f"| {p} | {size / MIB:.0f} | {ta['write']:.3f} | {tb['write']:.3f} | {first_close(b):.3f} "
              f"| {ta['write'] + first_close(a):.3f} | {tb['write'] + first_close(b):.3f} | {ta['read']:.3f} "
              f"| {tb['read']:.3f} | {size / ta['write'] / 1e6:.0f} / {size / tb['write'] / 1e6:.0f} "
              f"| {size / ta['read'] / 1e6:.0f} / {size / tb['read'] / 1e6:.0f} |")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[3])
    for title, fn, folder in (("Fig. 3: BT-IO", btio, sys.argv[1]), ("Fig. 6 and Table II: collperf", collperf,
                                                                        sys.argv[2]),
                              ("Fig. 5: MPI-Tile-IO", tile, sys.argv[3])):
        if folder == "-":
            continue
        print(f"### {title}\n")
        fn(folder)
        print()


if __name__ == "__main__":
    main()
