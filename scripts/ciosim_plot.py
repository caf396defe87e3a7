#!/usr/bin/env python3
"""ciosim plot: draws a results folder of `ciosim run` (docs/results.md) with matplotlib.

Run by `ciosim plot RESULTS [options]` (app/plot_command.cpp), which finds this file and python3; it can
also be run by hand: python3 scripts/ciosim_plot.py RESULTS [options].

Pictures (SVG and PNG, byte-identical for the same results and options):
  sweep.svg/.png   a sweep's curves: y (default: total simulated time) against a swept key, one line per
                   technique (or --group), one panel per network (or --panels); logarithmic axes when a
                   key doubles or the values span orders of magnitude.
  phases.svg/.png  one stacked bar per run: its phases in the order the run lists them (time order), each
                   phase's time the maximum over ranks, with the run's total simulated time marked.
  gantt-N.svg/.png with --timeline: point N's run (its timeline-N.json, `ciosim run --timeline chrome`)
                   as a Gantt chart: a lane per rank with its phases, each phase in the colour its name
                   always gets (the Paje file's too), MPI messages as arrows from sender to receiver, and a
                   lane per file-system server and disk with its requests; beyond 64 ranks each lane is a
                   group of consecutive ranks (each phase from the group's first start to its last end).

Exit status: 0 done; 2 bad input (one line on stderr: not a results folder, an unknown key, matplotlib or
python3 missing, ...).
"""

import argparse
import json
import math
import os
import sys
import tempfile

EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """A one-line error about the input; exit status 2."""


# ---- the results schema: everything this script knows about results.json, in one place -------------
#
# results.json (schema v1, docs/results.md, docs/results.schema.json) is {"schema_version": 1,
# "ciosim_version", "scenario", "runs": [run, ...]} (no schema_version: written before it, version 1) with
# run = {"algorithm", "params": {key: value}, "ranks", "network_mpi", "network_io", "sim_time_s",
# "phases": [{"name", "time_s"}], ...}. Fields may be added (per-rank times, units in names): read what
# exists, ignore the rest, accept the aliases below.

SCHEMA_VERSION = 1  # the results.json layout this script reads
TOTAL_TIME_KEYS = ("sim_time_s", "time_s", "total_time_s")  # first one present is the run's total time
PHASE_TIME_KEYS = ("time_s", "max_time_s", "time_max_s")    # a phase's time (maximum over ranks)
RUN_SCALARS = ("algorithm", "ranks", "network_mpi", "network_io")  # keys outside "params" one may plot by
ALIASES = {  # a run's top-level field and the parameter key it is the value of
    "algorithm": "run.algorithm",
    "ranks": "run.ranks",
    "network_mpi": "network.mpi",
    "network_io": "network.io",
}


def read_json(path, what, key):
    """The JSON object at `path`, which must hold a list under `key`; BadInput naming `what` otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path} is not a readable {what}: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        raise BadInput(f"{path} is not a ciosim {what} (no \"{key}\" list)")
    return doc


def completeness(doc):
    """What a results.json lacks, for the figures' titles: "partial: D of T points" while a sweep is
    unfinished (or was stopped), "N points skipped" when --keep-going left points out; "" when whole."""
    notes = []
    if doc.get("partial"):
        notes.append(f"partial: {doc.get('points_done', '?')} of {doc.get('points_total', '?')} points")
    skipped = doc.get("skipped")
    if isinstance(skipped, list) and skipped:
        notes.append(f"{len(skipped)} point{'s' if len(skipped) != 1 else ''} skipped")
    return "; ".join(notes)


def load_results(path):
    """(scenario name, runs, folder, completeness) of a results folder or its results.json; BadInput
    otherwise."""
    folder = path
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    else:
        folder = os.path.dirname(path) or "."
    if not os.path.isfile(path):
        raise BadInput(f"{folder} is not a results folder (no results.json; `ciosim run` writes one)")
    doc = read_json(path, "results.json", "runs")
    if doc.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
        raise BadInput(f"{path} is results.json of schema version {doc.get('schema_version')}; this script "
                       f"reads version {SCHEMA_VERSION} (docs/results.md, \"Compatibility\")")
    if not doc["runs"]:
        raise BadInput(f"{path} holds no runs")
    return str(doc.get("scenario", "")), doc["runs"], folder, completeness(doc)


def run_keys(run):
    """Every key one can plot or group by for this run, with its value: the params, the run's scalar
    fields under their parameter names, and its numeric results (sim_time_s, phase:NAME, op:KIND for an
    operation sequence's totals, bytes.*)."""
    keys = {}
    for k in RUN_SCALARS:
        if k in run:
            keys[ALIASES.get(k, k)] = run[k]
    for k, v in (run.get("params") or {}).items():
        keys[k] = v
    for k in TOTAL_TIME_KEYS:
        if isinstance(run.get(k), (int, float)):
            keys[k] = run[k]
    for ph in run.get("phases") or []:
        t = phase_time(ph)
        if t is not None and "name" in ph:
            keys["phase:" + str(ph["name"])] = t
    for k, v in (run.get("operation_totals_s") or {}).items():
        if isinstance(v, (int, float)):
            keys["op:" + k] = v
    for k, v in (run.get("bytes") or {}).items():
        if isinstance(v, (int, float)):
            keys["bytes." + k] = v
    return keys


def total_time(run):
    for k in TOTAL_TIME_KEYS:
        if isinstance(run.get(k), (int, float)):
            return float(run[k])
    return None


def total_time_key(runs):
    for k in TOTAL_TIME_KEYS:
        if all(isinstance(r.get(k), (int, float)) for r in runs):
            return k
    raise BadInput("the runs carry no total time (" + ", ".join(TOTAL_TIME_KEYS) + ")")


def phase_time(ph):
    for k in PHASE_TIME_KEYS:
        if isinstance(ph.get(k), (int, float)):
            return float(ph[k])
    return None


def phases(run):
    """[(name, time)] in the order the run lists them (time order)."""
    out = []
    for ph in run.get("phases") or []:
        t = phase_time(ph)
        if t is not None:
            out.append((str(ph.get("name", "?")), t))
    return out


# ---- choosing what to draw ---------------------------------------------------------------------------

NETWORK_KEYS = ("network.mpi", "network.io")
GROUP_FIRST = ("run.algorithm",)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def distinct(values):
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def varying_keys(rows):
    """Parameter keys (not results) whose value differs between runs, in first-seen order."""
    order = []
    for r in rows:
        for k in r:
            if k not in order and not k.startswith(("phase:", "op:", "bytes.")) \
                    and k not in TOTAL_TIME_KEYS:
                order.append(k)
    return [k for k in order if len(distinct(r.get(k) for r in rows)) > 1]


def choose_layout(rows, args):
    """(x, group keys, panel keys) from the options, defaults inferred from which keys vary."""
    vary = varying_keys(rows)
    known = set()
    for r in rows:
        known.update(r)
    for opt, val in (("--x", args.x), ("--y", args.y)):
        if val and val not in known:
            raise BadInput(f"{opt} {val}: no such key in these results; valid keys: " + ", ".join(sorted(known)))
    for opt, vals in (("--group", args.group), ("--panels", args.panels)):
        for v in vals or []:
            if v not in known:
                raise BadInput(f"{opt} {v}: no such key in these results; valid keys: " + ", ".join(sorted(known)))
    x = args.x
    if not x:
        numeric = [k for k in vary if all(is_number(r.get(k)) for r in rows)
                   and k not in (args.group or []) and k not in (args.panels or [])]
        if not numeric:
            return None, [], []
        x = max(numeric, key=lambda k: (len(distinct(r[k] for r in rows)), -numeric.index(k)))
    rest = [k for k in vary if k != x]
    group = args.group if args.group is not None else [k for k in rest if k in GROUP_FIRST]
    panels = args.panels if args.panels is not None else [k for k in rest if k in NETWORK_KEYS]
    if not group and args.group is None and args.panels is None and panels:
        group, panels = panels, []  # one technique: its networks as lines of one panel, easier to compare
    # Every other varying key must separate the lines too, or one line would zig-zag between points.
    for k in rest:
        if k not in group and k not in panels:
            if args.panels is None and len(distinct(r.get(k) for r in rows)) <= 4 and len(group) >= 1:
                panels.append(k)
            else:
                group.append(k)
    return x, group, panels


def label_of(keys, values):
    parts = []
    for k, v in zip(keys, values):
        if v is None:  # the key does not apply to this run (e.g. run.phases of a technique without phases)
            continue
        short = k.split(".")[-1] if k not in ("run.algorithm",) else ""
        parts.append(f"{short}={fmt_value(v)}" if short else fmt_value(v))
    return ", ".join(parts) if parts else "all runs"


def fmt_value(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def doubling(values):
    """True when the positive values grow by a constant factor >= 2 (1, 2, 4, ...) or span >= 16x."""
    vs = sorted(set(v for v in values if is_number(v)))
    if len(vs) < 2 or vs[0] <= 0:
        return False
    ratios = [b / a for a, b in zip(vs, vs[1:])]
    if len(vs) >= 3 and all(abs(q - ratios[0]) < 1e-9 * ratios[0] for q in ratios) and ratios[0] >= 2 - 1e-9:
        return True
    return vs[-1] / vs[0] >= 16


def wide_span(values):
    vs = [v for v in values if is_number(v) and v > 0]
    return len(vs) >= 2 and max(vs) / min(vs) >= 30


# ---- drawing -----------------------------------------------------------------------------------------

def setup_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise BadInput("matplotlib is not installed for " + sys.executable +
                       " (Debian: apt-get install python3-matplotlib; scripts/install-deps.sh does)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "ciosim"  # deterministic SVG ids
    matplotlib.rcParams["svg.fonttype"] = "none"    # text stays text (searchable, smaller)
    matplotlib.rcParams["font.size"] = 9
    import matplotlib.pyplot as plt
    return plt


def save(fig, folder, stem, formats):
    """Writes stem.svg / stem.png into folder, each by an atomic rename; returns the paths."""
    out = []
    for ext in formats:
        target = os.path.join(folder, f"{stem}.{ext}")
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".{ext}.tmp", dir=folder)
        os.close(fd)
        try:
            meta = {"Date": None, "Creator": "ciosim plot"} if ext == "svg" else {"Software": "ciosim plot"}
            fig.savefig(tmp, format=ext, dpi=120, metadata=meta)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
        out.append(target)
    return out


def draw_sweep(plt, title, rows, x, y, group, panels, logx, logy):
    panel_values = distinct(tuple(r.get(k) for k in panels) for r in rows)
    n = len(panel_values)
    cols = min(n, 3)
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols + 1.2, 3.6 * nrows + 0.6), squeeze=False,
                             sharey=True)
    group_values = distinct(tuple(r.get(k) for k in group) for r in rows)
    markers = "os^vD<>pPX*h"
    styles = {}
    cmap = plt.get_cmap("tab10" if len(group_values) <= 10 else "tab20")
    for i, g in enumerate(group_values):
        styles[g] = dict(color=cmap(i % cmap.N), marker=markers[i % len(markers)])
    handles = {}
    for pi, pv in enumerate(panel_values):
        ax = axes[pi // cols][pi % cols]
        sub = [r for r in rows if tuple(r.get(k) for k in panels) == pv]
        for g in group_values:
            pts = sorted((r[x], r[y]) for r in sub
                         if tuple(r.get(k) for k in group) == g and is_number(r.get(x)) and is_number(r.get(y)))
            if not pts:
                continue
            (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label_of(group, g),
                              markersize=4, linewidth=1.4, **styles[g])
            line.set_gid(f"ciosim-series-{pi}-{group_values.index(g)}")
            handles.setdefault(g, line)
        if logx:
            ax.set_xscale("log", base=2)
            xs = sorted(set(r[x] for r in sub if is_number(r.get(x))))
            if xs and len(xs) <= 12:
                ax.set_xticks(xs)
                ax.set_xticklabels([fmt_value(v) for v in xs])
                ax.minorticks_off()
        if logy:
            from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))  # 0.1, 0.2, 0.5, 1, ...
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
        else:
            ax.set_ylim(bottom=0)  # a linear axis starts at 0: differences are not magnified
        ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
        if panels:
            ax.set_title(label_of(panels, pv), fontsize=9)
        ax.set_xlabel(x)
        if pi % cols == 0:
            ax.set_ylabel(axis_label(y))
    for k in range(n, nrows * cols):
        axes[k // cols][k % cols].set_visible(False)
    fig.suptitle(f"{title}: {axis_label(y)} against {x}", fontsize=10)
    legend = fig.legend([handles[g] for g in group_values if g in handles],
                        [label_of(group, g) for g in group_values if g in handles],
                        loc="lower center", ncol=min(len(handles), 4), frameon=False, fontsize=8)
    legend.set_gid("ciosim-legend")
    rows_of_legend = (len(handles) + 3) // 4
    fig.tight_layout(rect=(0, 0.04 + 0.035 * rows_of_legend, 1, 1))
    return fig


def axis_label(y):
    if y in TOTAL_TIME_KEYS:
        return "simulated time (s)"
    if y.startswith("phase:"):
        return f"phase {y[6:]} (s, max over ranks)"
    if y.startswith("op:"):
        return f"all {y[3:]} operations (s, sum of the slowest rank's)"
    return y


PHASE_RUNS_PER_FIGURE = 40  # more runs are drawn as several figures (phases-1, phases-2, ...)
PHASE_SHARE_SPAN = 10       # runs whose totals span more than this get a second panel: each run's shares


def phase_names(runs):
    """Every phase name of the runs, in the order they first appear (their colours' order)."""
    names = []
    for run in runs:
        for name, _ in phases(run):
            if name not in names:
                names.append(name)
    return names


def draw_phases(plt, title, runs, labels, names=None):
    """Each run's phases as a bar of their times; when the runs' totals span more than PHASE_SHARE_SPAN
    times (one run much slower squashes the others' bars), a second panel beside it draws each run's
    phases as shares of its own time, legible whatever the scale. `names`: the phases that get the
    colours, in order (default: these runs'; the figures of one sweep pass all of theirs, so a phase has
    one colour in all of them)."""
    names = names or phase_names(runs)
    cmap = plt.get_cmap("tab20" if len(names) > 10 else "tab10")
    colour = {name: cmap(i % cmap.N) for i, name in enumerate(names)}
    totals = [sum(t for _, t in phases(run)) for run in runs]
    positive = [t for t in totals if t > 0]
    shares = len(positive) > 1 and max(positive) > PHASE_SHARE_SPAN * min(positive)
    height = max(2.2, 0.32 * len(runs) + 1.6, 0.19 * (len(names) + 1) + 0.9)  # room for every legend entry
    width = 13.5 if shares else 8.5
    fig, axes = plt.subplots(1, 2 if shares else 1, figsize=(width, height), squeeze=False,
                             sharey=True)
    ax = axes[0][0]
    right = axes[0][1] if shares else None
    seen = set()
    for i, run in enumerate(runs):
        left = 0.0
        share_left = 0.0
        for k, (name, t) in enumerate(phases(run)):
            bar = ax.barh(i, t, left=left, color=colour[name], edgecolor="white", linewidth=0.4,
                          label=name if name not in seen else None, height=0.7)
            bar.patches[0].set_gid(f"ciosim-phase-{i}-{k}")
            seen.add(name)
            left += t
            if right is not None:  # the same phase as a share of the run's own time
                share = 100 * t / totals[i] if totals[i] > 0 else 0
                bar = right.barh(i, share, left=share_left, color=colour[name], edgecolor="white",
                                 linewidth=0.4, height=0.7)
                bar.patches[0].set_gid(f"ciosim-share-{i}-{k}")
                share_left += share
        total = total_time(run)
        if total is not None:
            ax.plot([total, total], [i - 0.42, i + 0.42], color="black", linewidth=1.2,
                    label="total simulated time" if i == 0 else None)
    ax.set_yticks(range(len(runs)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("simulated time (s): phases in time order, each the maximum over ranks")
    ax.grid(True, axis="x", linewidth=0.4, alpha=0.6)
    ax.set_title(title, fontsize=10)
    if right is not None:
        right.set_xlim(0, 100)
        right.set_xlabel("share of the run's phases (%): the runs' totals span "
                         f"{max(positive) / min(positive):.0f}x")
        right.grid(True, axis="x", linewidth=0.4, alpha=0.6)
        right.set_title("each run's phases as shares of its own time", fontsize=10)
    legend = axes[0][-1].legend(*ax.get_legend_handles_labels(), loc="upper left", bbox_to_anchor=(1.01, 1),
                                fontsize=8, frameon=False)
    legend.set_gid("ciosim-legend")
    fig.tight_layout()
    return fig


# ---- the Gantt chart of one point (its Chrome trace, config/timeline.cpp) ------------------------------

# Twenty distinct colours (tab10 and its light variants, the greys replaced: grey is the servers') given
# to the phases in the order they first appear (rank 0's in time order, then rank 1's new ones, ...): the
# Paje file's state colours (config/timeline.cpp, state_colour) in the same order, so both show a phase
# alike.
PALETTE = ((0.122, 0.467, 0.706), (1.000, 0.498, 0.055), (0.173, 0.627, 0.173), (0.839, 0.153, 0.157),
           (0.580, 0.404, 0.741), (0.549, 0.337, 0.294), (0.890, 0.467, 0.761), (0.000, 0.502, 0.502),
           (0.737, 0.741, 0.133), (0.090, 0.745, 0.812), (0.682, 0.780, 0.910), (1.000, 0.733, 0.471),
           (0.596, 0.875, 0.541), (1.000, 0.596, 0.588), (0.773, 0.690, 0.835), (0.769, 0.612, 0.580),
           (0.969, 0.714, 0.824), (0.502, 0.000, 0.251), (0.859, 0.859, 0.553), (0.620, 0.855, 0.898))
MAX_LANES = 64      # rank lanes drawn one per rank up to this; beyond, groups of consecutive ranks
MAX_ARROWS = 4000   # messages drawn as arrows up to this many (more would be a grey smear)


def load_timeline(folder, point):
    path = os.path.join(folder, f"timeline-{point}.json")
    if not os.path.isfile(path):
        have = sorted(f for f in os.listdir(folder) if f.startswith("timeline-") and f.endswith(".json"))
        raise BadInput(f"{folder} has no timeline-{point}.json (" +
                       (("it has " + ", ".join(have)) if have else "run the scenario with --timeline chrome") + ")")
    return read_json(path, "timeline", "traceEvents")


def gantt_lanes(doc):
    """(ranks: {rank: [(phase, start_s, end_s)]}, servers: [(lane name, [(op, start_s, end_s)])],
    messages: [(src, dst, start_s, end_s)]) from a Chrome trace (times in microseconds)."""
    names = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    ranks, lanes, order, messages = {}, {}, [], []
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        s, t = e["ts"] * 1e-6, (e["ts"] + e["dur"]) * 1e-6
        cat = e.get("cat")
        if cat == "phase":
            ranks.setdefault(int(e["args"]["rank"]), []).append((e["name"], s, t))
        elif cat in ("request", "disk"):
            lane = names.get((e["pid"], e["tid"]), "?").split(" #")[0]  # overlapping ones share the lane
            if lane not in lanes:
                lanes[lane] = []
                order.append(lane)
            lanes[lane].append((e["name"], s, t))
        elif cat == "message":
            messages.append((int(e["args"]["src"]), int(e["args"]["dst"]), s, t))
    return ranks, [(lane, lanes[lane]) for lane in order], messages


def draw_gantt(plt, title, doc):
    ranks, servers, messages = gantt_lanes(doc)
    if not ranks:
        raise BadInput("the timeline holds no rank phases")
    phase_names = []  # first appearance: the order of the Paje file's colours
    for r in sorted(ranks):
        for name, _, _ in ranks[r]:
            if name not in phase_names:
                phase_names.append(name)
    colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(phase_names)}
    nranks = max(ranks) + 1
    group = max(1, math.ceil(nranks / MAX_LANES))
    rank_lanes = []  # (label, [(phase, start, end)])
    for first in range(0, nranks, group):
        members = range(first, min(nranks, first + group))
        if group == 1:
            rank_lanes.append((f"rank {first}", ranks.get(first, [])))
            continue
        spans = {}
        for r in members:
            for name, s, t in ranks.get(r, []):
                lo, hi = spans.get(name, (s, t))
                spans[name] = (min(lo, s), max(hi, t))
        rank_lanes.append((f"ranks {first}-{members[-1]}",
                           sorted(((n, s, t) for n, (s, t) in spans.items()), key=lambda x: (x[1], x[0]))))
    lanes = rank_lanes + servers
    end = max([t for _, spans in lanes for _, _, t in spans] + [t for *_, t in messages] + [0.0])
    unit, scale = ("s", 1.0) if end >= 1 else (("ms", 1e3) if end >= 1e-3 else ("us", 1e6))
    height = max(2.5, 0.28 * len(lanes) + 1.8)
    fig, ax = plt.subplots(figsize=(10, min(height, 40)))
    for y, (label, spans) in enumerate(lanes):
        server = y >= len(rank_lanes)
        bars = [(s * scale, max((t - s) * scale, end * scale * 1e-4)) for _, s, t in spans]
        if server:  # overlapping requests darken each other
            ax.broken_barh(bars, (y - 0.38, 0.76), facecolors=(0.35, 0.35, 0.35, 0.3), edgecolors="none")
            continue
        for k, ((name, _, _), bar) in enumerate(zip(spans, bars)):
            ax.broken_barh([bar], (y - 0.38, 0.76), facecolors=[colour[name]], edgecolors="none").set_gid(
                f"ciosim-phase-{y}-{k}")
    if len(messages) <= MAX_ARROWS and group == 1:
        for src, dst, s, t in messages:
            if src == dst:
                continue
            ax.annotate("", xy=(t * scale, dst), xytext=(s * scale, src),
                        arrowprops=dict(arrowstyle="-|>", color="black", lw=0.4, alpha=0.35,
                                        shrinkA=0, shrinkB=0, mutation_scale=5))
        shown = "MPI messages as arrows"
    else:
        shown = f"{len(messages)} MPI messages not drawn" + (" (grouped ranks)" if group > 1 else "")
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([label for label, _ in lanes], fontsize=7 if len(lanes) > 24 else 8)
    ax.set_ylim(len(lanes) - 0.5, -0.5)
    ax.set_xlim(0, end * scale * 1.01 if end > 0 else 1)
    ax.set_xlabel(f"simulated time ({unit})")
    ax.grid(True, axis="x", linewidth=0.4, alpha=0.6)
    ax.set_title(f"{title}\n{shown}; grey: file-system requests and disk operations (darker where they "
                 "overlap)", fontsize=9)
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=colour[n], label=n) for n in phase_names]
    legend = ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8,
                       frameon=False, title="phases", title_fontsize=8)
    legend.set_gid("ciosim-legend")
    fig.tight_layout()
    return fig


# ---- the command -------------------------------------------------------------------------------------

def parse_where(items, rows):
    conds = []
    for item in items or []:
        if "=" not in item:
            raise BadInput(f"--where {item}: expected KEY=VALUE")
        k, v = item.split("=", 1)
        if not any(k in r for r in rows):
            raise BadInput(f"--where {k}: no such key in these results")
        conds.append((k, v))
    return conds


def matches(row, conds):
    return all(fmt_value(row.get(k)) == v for k, v in conds)


def main(argv):
    ap = argparse.ArgumentParser(prog="ciosim plot", description=__doc__.split("\n\n")[0])
    ap.add_argument("results", metavar="RESULTS", help="a results folder of `ciosim run`, or its results.json")
    ap.add_argument("--kind", choices=("auto", "sweep", "phases", "all"), default="auto",
                    help="what to draw: auto (a sweep's curves when a numeric key varies, and phase bars "
                         "for up to 40 runs), sweep, phases or all")
    ap.add_argument("--x", help="the key on the x axis (default: the numeric swept key with most values)")
    ap.add_argument("--y", help="the value on the y axis (default: sim_time_s; e.g. phase:write, op:write)")
    ap.add_argument("--group", action="append", help="a key whose values are separate lines (repeatable; "
                    "default: run.algorithm and the other swept keys)")
    ap.add_argument("--panels", action="append", help="a key whose values are separate panels "
                    "(repeatable; default: the networks)")
    ap.add_argument("--where", action="append", help="only the runs with KEY=VALUE (repeatable)")
    ap.add_argument("--logx", choices=("auto", "on", "off"), default="auto")
    ap.add_argument("--logy", choices=("auto", "on", "off"), default="auto")
    ap.add_argument("--out", help="the folder for the pictures (default: the results folder)")
    ap.add_argument("--format", action="append", choices=("svg", "png"),
                    help="svg and/or png (default: both)")
    ap.add_argument("--timeline", action="store_true",
                    help="draw a point's timeline (timeline-N.json) as a Gantt chart, gantt-N.svg/.png")
    ap.add_argument("--point", type=int, default=1, help="the point whose timeline --timeline draws (default 1)")

    def error(message):
        raise BadInput(message + " (see ciosim plot --help)")

    ap.error = error
    args = ap.parse_args(argv)
    scenario, runs, folder, lacking = load_results(args.results)
    if lacking:
        print(f"ciosim plot: {args.results}: {lacking}: the figures show the points that are there",
              file=sys.stderr)
    out = args.out or folder
    if not os.path.isdir(out):
        raise BadInput(f"--out {out}: not a directory")
    formats = args.format or ["svg", "png"]
    if args.timeline:
        if not 1 <= args.point <= len(runs):
            raise BadInput(f"--point {args.point}: the results hold points 1 to {len(runs)}")
        doc = load_timeline(folder, args.point)
        point = (doc.get("otherData") or {}).get("point") or runs[args.point - 1].get("algorithm", "")
        plt = setup_matplotlib()
        fig = draw_gantt(plt, f"{scenario or 'ciosim'}, point {args.point}: {point}", doc)
        written = save(fig, out, f"gantt-{args.point}", formats)
        plt.close(fig)
        for w in written:
            print(w)
        return 0
    rows_all = [run_keys(r) for r in runs]
    conds = parse_where(args.where, rows_all)
    picked = [i for i, r in enumerate(rows_all) if matches(r, conds)]
    if not picked:
        seen = "; ".join(f"{k} takes " + ", ".join(distinct(fmt_value(r.get(k)) for r in rows_all if k in r))
                         for k, _ in conds)
        raise BadInput("--where " + " ".join(f"{k}={v}" for k, v in conds) + " selects no run (" + seen + ")")
    runs = [runs[i] for i in picked]
    rows = [rows_all[i] for i in picked]
    y = args.y or total_time_key(runs)
    plt = setup_matplotlib()
    written = []
    title = f"{scenario}" if scenario else "ciosim results"
    if conds:
        title += " (" + ", ".join(f"{k}={v}" for k, v in conds) + ")"
    if lacking:
        title += f" [{lacking}]"

    want_sweep = args.kind in ("sweep", "all", "auto")
    x, group, panels = choose_layout(rows, args)
    if want_sweep and x is None and args.kind in ("sweep", "all"):
        raise BadInput("no numeric key varies between these runs; give --x KEY")
    if want_sweep and x is not None:
        xs = [r.get(x) for r in rows]
        if not all(is_number(v) for v in xs):
            raise BadInput(f"--x {x}: its values are not all numbers")
        logx = args.logx == "on" or (args.logx == "auto" and doubling(xs))
        logy = args.logy == "on" or (args.logy == "auto" and wide_span([r.get(y) for r in rows]))
        fig = draw_sweep(plt, title, rows, x, y, group, panels, logx, logy)
        written += save(fig, out, "sweep", formats)
        plt.close(fig)

    want_phases = args.kind in ("phases", "all") or (args.kind == "auto" and len(runs) <= 40)
    if want_phases:
        vary = varying_keys(rows)
        if not vary:  # one run (or identical ones): name it by what was set
            vary = [k for k in (runs[0].get("params") or {})] or ["run.algorithm"]
        labels = [label_of(vary, [r.get(k) for k in vary]) for r in rows]
        # At most PHASE_RUNS_PER_FIGURE runs a figure: more are phases-1, phases-2, ..., each titled with
        # the runs it holds.
        n = PHASE_RUNS_PER_FIGURE
        pages = [(a, min(a + n, len(runs))) for a in range(0, len(runs), n)]
        names = phase_names(runs)
        for page, (a, b) in enumerate(pages, 1):
            one = len(pages) == 1
            fig = draw_phases(plt, title if one else f"{title} (runs {a + 1}-{b} of {len(runs)})", runs[a:b],
                              labels[a:b], names)
            written += save(fig, out, "phases" if one else f"phases-{page}", formats)
            plt.close(fig)
    if not written:
        raise BadInput(f"nothing to draw for {len(runs)} runs: no numeric key varies and more than 40 runs "
                       "for phase bars; use --where or --kind phases")
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as e:
        print("ciosim: error: " + " ".join(str(e).split()), file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
