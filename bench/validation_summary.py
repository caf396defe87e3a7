#!/usr/bin/env python3
"""Summarises a validation matrix (bench/validation_matrix.sh): every point's phases, predicted against
measured, and the distribution of the errors.

Usage: bench/validation_summary.py OUT_DIR     (reads OUT_DIR/*/validation.json, prints Markdown)

Error = (predicted - measured) / measured, as ciosim validate reports it. The summary takes |error| of
every point's total and of every phase whose measured median is at least 1 ms (shorter phases are below
the timer's and the machine's noise), and prints their median, 90th percentile (nearest rank) and worst,
and the same for the totals against each point's fastest repetition (robust to a burst of noise that
leaves one repetition clean);
then the MPI library's own collective write (validate's reference) against its prediction, where made.
"""
import json
import math
import os
import sys


def percentile(sorted_values, q):
    """Nearest-rank percentile of an ascending list (q in [0, 1])."""
    if not sorted_values:
        return float("nan")
    k = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[k]


def pct(x):
    return "—" if x is None or math.isnan(x) else f"{100 * x:+.0f} %"


def abs_pct(x):
    return "—" if math.isnan(x) else f"{100 * x:.0f} %"


def library_summary(runs):
    """The MPI library's own MPI_File_write_all (validate's reference) against its prediction (two-phase with
    run.cpu_charge = library), once per workload: every technique point of a set runs the same reference."""
    rows = []
    for name, v in runs:
        seen = set()
        for p in v.get("points", []):
            workload = ", ".join(x for x in p.get("params", "").split(", ") if not x.startswith("run.algorithm="))
            for ref in p.get("references", []):
                tot = ref.get("total", {})
                if (ref["label"], workload) in seen or "predicted_s" not in tot:
                    continue
                seen.add((ref["label"], workload))
                bx = [x for x in workload.split(", ") if x.startswith("workload.bx=")]
                rows.append((name + (" " + bx[0] if bx else ""), ref["label"], tot))
    if not rows:
        return
    print("\nThe MPI library's own MPI_File_write_all (ROMIO), predicted by two-phase with run.cpu_charge = "
          "library:\n")
    print("| set | library | predicted / measured (s) | error |")
    print("|---|---|---:|---:|")
    errs = []
    for name, label, tot in rows:
        errs.append((abs(tot["relative_error"]), f"{name} {label}"))
        print(f"| {name} | {label} | {tot['predicted_s']:.4f} / {tot['measured_median_s']:.4f} | "
              f"{pct(tot['relative_error'])} |")
    s = sorted(errs)
    e = [x for x, _ in s]
    print(f"\n- the library's write_all: {len(s)}; |error| median {abs_pct(percentile(e, 0.5))}, "
          f"p90 {abs_pct(percentile(e, 0.9))}, worst {abs_pct(s[-1][0])} ({s[-1][1]})")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: validation_summary.py OUT_DIR")
    out = sys.argv[1]
    runs = []
    for entry in sorted(os.listdir(out)):
        path = os.path.join(out, entry, "validation.json")
        if os.path.isfile(path):
            with open(path) as f:
                runs.append((entry, json.load(f)))
    if not runs:
        sys.exit(f"validation_summary.py: no */validation.json under {out}")
    machine = os.path.join(out, "machine.txt")
    if os.path.isfile(machine):
        print("```")
        print(open(machine).read().rstrip())
        print("```\n")
    totals, phases, failed, fastest = [], [], [], []
    per_tech = {}
    print("| set | technique | total: predicted / measured (s) | error | phases ≥ 1 ms: error |")
    print("|---|---|---:|---:|---|")
    for name, v in runs:
        for p in v.get("points", []):
            tech = p.get("algorithm", "?")
            if not p.get("passed", False):
                failed.append(f"{name} {tech}")
            timing = {t["phase"]: t for t in p.get("timing", [])}
            tot = timing.get("total")
            if tot is None:
                continue
            err = tot["relative_error"]
            totals.append((abs(err), f"{name} {tech}"))
            if tot.get("measured_min_s", 0) > 0:
                fastest.append((abs(tot["predicted_s"] - tot["measured_min_s"]) / tot["measured_min_s"],
                                f"{name} {tech}"))
            per_tech.setdefault(tech, []).append(abs(err))
            cells = []
            for ph, t in timing.items():
                if ph == "total" or t["measured_median_s"] < 1e-3:
                    continue
                phases.append((abs(t["relative_error"]), f"{name} {tech} {ph}"))
                cells.append(f"{ph} {pct(t['relative_error'])}")
            print(f"| {name} | {tech} | {tot['predicted_s']:.4f} / {tot['measured_median_s']:.4f} | "
                  f"{pct(err)} | {', '.join(cells)} |")
    print()
    # The same totals against each point's fastest repetition: a burst of the machine's that covers some
    # repetitions of a point (docs/validation.md, "a stall that is the machine's") moves the median only
    # when it covers most of them, the minimum only when it covers all; a model error moves both.
    for label, values in (("totals", totals), ("phases ≥ 1 ms", phases),
                          ("totals against the fastest repetition", fastest)):
        s = sorted(values)
        errs = [e for e, _ in s]
        worst = s[-1] if s else (float("nan"), "")
        print(f"- {label}: {len(s)}; |error| median {abs_pct(percentile(errs, 0.5))}, "
              f"p90 {abs_pct(percentile(errs, 0.9))}, worst {abs_pct(worst[0])} ({worst[1]})")
    print(f"\nEvery set's per-phase table (predicted, measured, min, max, error): {out}/SET.txt.")
    print("\n| technique | points | median of the totals' \\|error\\| | worst |")
    print("|---|---:|---:|---:|")
    for tech in sorted(per_tech):
        s = sorted(per_tech[tech])
        print(f"| {tech} | {len(s)} | {abs_pct(percentile(s, 0.5))} | {abs_pct(s[-1])} |")
    library_summary(runs)
    skipped = os.path.join(out, "skipped.txt")
    if os.path.isfile(skipped) and os.path.getsize(skipped) > 0:
        print("\nSkipped:")
        for line in open(skipped):
            print(f"- {line.rstrip()}")
    if failed:
        print("\nCorrectness failed (files or traces differ): " + "; ".join(failed))
    noted = sorted({n for _, v in runs for n in v.get("notes", [])})
    if noted:
        print("\nNotes from ciosim validate:")
        for n in noted:
            print(f"- {n}")


if __name__ == "__main__":
    main()
