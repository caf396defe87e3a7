#!/usr/bin/env python3
"""The claim ledger: every paper claim that docs/reproduction.md decides, as an executable check.

Each claim (scripts/claim_ledger.py) names the scenario and the points it needs (or a study: a project
script that runs several scenarios, as the LAP reproduction's), runs them with the simulator, evaluates its
condition on the results and says reproduced / partly / not reproduced, with the numbers that decided it.
With --robustness it reruns the claim with each uncertain parameter it depends on set to every value of a
stated plausible range, and says for which values the verdict holds.

Usage:
  scripts/claims.py [NAME ...] [--build DIR] [--out DIR [--resume]] [--robustness] [--markdown FILE] [-j N]
                    [--verify]
  scripts/claims.py --check-docs [--markdown FILE] [--reproduction FILE]
  scripts/claims.py --list

  NAME            claims to run (default: all); `--list` shows them
  --build DIR     where ciosim is (default: build)
  --out DIR       where the runs go (default: a temporary folder, removed at the end)
  --resume        keep the points an earlier ledger run left in --out (ciosim run --resume; a study's
                  finished runs are kept by its script) and run the rest. Only with the same build: ciosim's
                  --resume compares the configuration, not the simulator that made the points
  --robustness    also re-evaluate each claim over its parameters' ranges
  --markdown F    write the ledger's table to F (docs/claims.md is the shipped one)
  -j N            ciosim's -j for each run (default 1)
  --verify        exit 1 when a claim's verdict differs from the one docs/claims.md records
  --check-docs    no simulation: check that F (default docs/claims.md) lists exactly the ledger's claims and
                  that every row of docs/reproduction.md marked <!-- claim:NAME --> has the verdict F gives
                  NAME, and that every claim has such a row (exit 1 and one line per mismatch)

Exit status: 0 when every claim ran (whatever its verdict), 1 when a run failed or a check mismatched,
2 on bad arguments (an unknown claim name: the valid ones are listed).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claim_ledger  # noqa: E402  (the claims themselves)

VERDICTS = ("reproduced", "partly", "not reproduced")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Runs:
    """A results.json's runs, looked up by what identifies a point: the technique, the MPI network, the
    rank count and every swept parameter (run.phases, workload.bx, workload.preset, ...)."""

    def __init__(self, path):
        self.folder = os.path.dirname(path)
        with open(path) as f:
            self.runs = json.load(f)["runs"]
        bad = [r for r in self.runs if not r["file_verified"]]
        if bad:
            raise RuntimeError(f"{path}: {len(bad)} points whose file was not verified")

    @staticmethod
    def _fields(run):
        d = {k: str(v) for k, v in run["params"].items()}
        d["algorithm"] = run["algorithm"]
        d["network"] = run["network_mpi"]
        d["ranks"] = str(run["ranks"])
        return d

    def all(self, **want):
        """Every run whose fields match `want` (keys with dots spelled with __: workload__bx=16)."""
        want = {k.replace("__", "."): str(v) for k, v in want.items()}
        return [r for r in self.runs if all(self._fields(r).get(k) == v for k, v in want.items())]

    def one(self, **want):
        found = self.all(**want)
        if len(found) != 1:
            raise RuntimeError(f"{len(found)} runs match {want}, not one")
        return found[0]

    @staticmethod
    def phase(run, name):
        """The phase's time (its slowest rank), 0 when the run has no such phase."""
        return next((p["time_s"] for p in run["phases"] if p["name"] == name), 0.0)

    def total(self, **want):
        return self.one(**want)["sim_time_s"]

    def time(self, name, **want):
        return self.phase(self.one(**want), name)

    def exchanges(self, **want):
        """The run's exchange phases in order (exchange, exchange0, exchange1, ...)."""
        run = self.one(**want)
        return [p["time_s"] for p in run["phases"] if re.fullmatch(r"exchange\d*", p["name"])]


RESUME = []  # ["--resume"] with --resume
_RUNS = {}  # (scenario, sets) -> Runs: claims that need the same points share one run
_STUDY_CONFIG = {}  # id of a study's loaded points -> the effective-config.toml its base values are read from


def run_points(claim, build, out, extra_sets, jobs):
    """Runs the claim's scenario with its sets (and `extra_sets`) into `out`, or reuses the run of an earlier
    claim that asked for the same points; returns its Runs."""
    if claim.study is not None:
        return run_study(claim.study, build, out, extra_sets, jobs)
    key = (claim.scenario, tuple(claim.sets) + tuple(extra_sets))
    if key in _RUNS:
        return _RUNS[key]
    cmd = [os.path.join(build, "ciosim"), "run", os.path.join(ROOT, "scenarios", claim.scenario + ".toml"),
           "-q", "--out", out, "-j", str(min(jobs, claim.max_jobs) if claim.max_jobs else jobs)] + RESUME
    for s in list(claim.sets) + list(extra_sets):
        cmd += ["--set", s]
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    _RUNS[key] = Runs(os.path.join(out, "results.json"))
    return _RUNS[key]


def run_study(study, build, out, extra_sets, jobs):
    """Runs a study's script into `out` with `extra_sets` (once per ledger run and sets: claims of one study
    share it) and loads it."""
    key = ("study", study.name) + tuple(extra_sets)
    if key in _RUNS:
        return _RUNS[key]
    env = dict(os.environ, BUILD=os.path.abspath(build), JOBS=str(jobs), SETS=" ".join(extra_sets))
    done = subprocess.run(study.command + [out], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(study.command + [out])} exited {done.returncode}: "
                           f"{done.stderr.strip().splitlines()[-1:]}")
    _RUNS[key] = study.load(out)
    _STUDY_CONFIG[id(_RUNS[key])] = os.path.join(out, study.config)
    return _RUNS[key]


def judge(claim, runs):
    verdict, evidence = claim.judge(runs)
    if verdict not in VERDICTS:
        raise RuntimeError(f"claim {claim.name}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    return verdict, evidence


def fmt_value(param, v):
    return f"{v * param.scale:g} {param.unit}".strip()


def check_base(claim, param, base):
    """The scenario's own value of `param` must be the one the ledger calls ours: a claim whose scenario or
    platform changed is not re-decided around a stale base."""
    path = _STUDY_CONFIG.get(id(base)) or os.path.join(base.folder, "effective-config.toml")
    with open(path, "rb") as f:
        config = tomllib.load(f)
    table, key = param.key.split(".", 1)
    value = config.get(table, {}).get(key)
    if isinstance(value, list) and len(value) == 1:  # a claim's own --set of the key: a sweep of one value
        value = value[0]
    if not isinstance(value, (int, float)) or abs(value - param.base) > 1e-9 * abs(param.base):
        raise RuntimeError(f"claim {claim.name}: {param.key} is {value} in its scenario, but the ledger's base value "
                           f"is {param.base:g} (update scripts/claim_ledger.py)")


def robustness(claim, base, base_verdict, build, out, jobs):
    """Per parameter, the verdict at each value of its range, as one sentence each."""
    parts = []
    for param in claim.depends:
        check_base(claim, param, base)
        seen = []
        for v in param.values:
            if v == param.base:
                seen.append((v, base_verdict))
                continue
            d = os.path.join(out, f"{param.key}={v:g}")
            seen.append((v, judge(claim, run_points(claim, build, d, [f"{param.key}={v!r}"], jobs))[0]))
        if all(verdict == base_verdict for _, verdict in seen):
            parts.append(f"`{param.key}` {fmt_value(param, seen[0][0])} to {fmt_value(param, seen[-1][0])}: "
                         f"{base_verdict} throughout")
        else:
            parts.append(f"`{param.key}`: " + ", ".join(
                f"{fmt_value(param, v)}{' (ours)' if v == param.base else ''} {verdict}" for v, verdict in seen))
    return "; ".join(parts)


def parameters_table():
    """The uncertain parameters the ledger varies, with their ranges and reasons."""
    seen, lines = set(), ["| parameter | values tried | ours | why that range |", "|---|---|---|---|"]
    for c in claim_ledger.CLAIMS:
        for p in c.depends:
            if (p.key, p.base, p.what) in seen:
                continue
            seen.add((p.key, p.base, p.what))
            lines.append(f"| `{p.key}` | {', '.join(fmt_value(p, v) for v in p.values)} | "
                         f"{fmt_value(p, p.base)} | {p.what} |")
    return "\n".join(lines) + "\n"


def markdown(rows):
    lines = ["| claim | paper | the paper says | ciosim | verdict | robustness |",
             "|---|---|---|---|---|---|"]
    for c, verdict, evidence, robust in rows:
        fixed = f"not varied: {c.fixed}" if c.fixed else "not varied"
        cells = [f"`{c.name}`", c.paper, c.says, evidence, f"**{verdict}**", robust or fixed]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def moving(rows):
    """The claims whose verdict changes inside a plausible range of a value it depends on, as a list."""
    moved = [(c, verdict, robust) for c, verdict, _, robust in rows if "(ours)" in robust]
    if not moved:
        return "\nNo verdict changes inside the plausible ranges below.\n"
    lines = ["\nVerdicts that change inside a plausible range (the rest hold throughout theirs):\n"]
    for c, verdict, robust in moved:
        parts = [p for p in robust.split("; ") if "(ours)" in p]
        lines.append(f"- `{c.name}` ({verdict} with ours): " + "; ".join(parts))
    return "\n".join(lines) + "\n"


def ledger_verdicts(path):
    """claim name -> verdict, from a ledger table written by --markdown."""
    found = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\| `([^`]+)` \|.*\| \*\*([^*]+)\*\* \|[^|]*\|\s*$", line)
            if m:
                found[m.group(1)] = m.group(2)
    return found


def unexplained():
    """Claims that neither name the values their verdict is re-decided over nor say why none enters it."""
    return [f"scripts/claim_ledger.py: claim {c.name} has no `depends` and no `fixed` reason"
            for c in claim_ledger.CLAIMS if not c.depends and not c.fixed]


def check_docs(ledger_md, reproduction_md):
    errors = unexplained()
    names = [c.name for c in claim_ledger.CLAIMS]
    recorded = ledger_verdicts(ledger_md)
    for n in names:
        if n not in recorded:
            errors.append(f"{ledger_md}: no row for claim {n} (rerun scripts/claims.py --markdown {ledger_md})")
    for n in recorded:
        if n not in names:
            errors.append(f"{ledger_md}: claim {n} is not in scripts/claim_ledger.py")
    marked = {}
    with open(reproduction_md) as f:
        for i, line in enumerate(f, 1):
            if not line.startswith("|"):  # markers live in the verdict tables' rows
                continue
            for n in re.findall(r"<!-- claim:([\w-]+) -->", line):
                cells = [c.strip() for c in line.rstrip().rstrip("|").split("|")]
                # The verdict is the first bold word of the row's last cell that names one.
                last = cells[-1] if cells else ""
                m = re.search(r"\*\*(reproduced|partly|not reproduced)\b", last)
                marked[n] = (i, m.group(1) if m else None)
    for n in names:
        if n not in marked:
            errors.append(f"{reproduction_md}: no row marked <!-- claim:{n} -->")
    for n, (line, verdict) in marked.items():
        if n not in names:
            errors.append(f"{reproduction_md}:{line}: claim {n} is not in scripts/claim_ledger.py")
        elif verdict is None:
            errors.append(f"{reproduction_md}:{line}: the row of claim {n} has no bold verdict in its last cell")
        elif n in recorded and verdict != recorded[n]:
            errors.append(f"{reproduction_md}:{line}: claim {n} says {verdict}; the ledger ({ledger_md}) says "
                          f"{recorded[n]}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out")
    ap.add_argument("--robustness", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--check-docs", action="store_true")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--reproduction", default=os.path.join(ROOT, "docs", "reproduction.md"))
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()

    by_name = {c.name: c for c in claim_ledger.CLAIMS}
    if a.list:
        for c in claim_ledger.CLAIMS:
            print(f"{c.name:34} {c.scenario:20} {c.paper}")
        return 0
    if a.check_docs:
        errors = check_docs(a.markdown or os.path.join(ROOT, "docs", "claims.md"), a.reproduction)
        for e in errors:
            print(e)
        return 1 if errors else 0
    unknown = [n for n in a.names if n not in by_name]
    if unknown:
        print(f"claims.py: unknown claim {', '.join(unknown)}; valid: {', '.join(by_name)}", file=sys.stderr)
        return 2
    if a.j < 1:
        print("claims.py: -j must be at least 1", file=sys.stderr)
        return 2
    if a.markdown and a.names:
        print("claims.py: --markdown writes the whole ledger: give no claim names with it", file=sys.stderr)
        return 2
    if a.resume and not a.out:
        print("claims.py: --resume needs --out (the folder of the earlier run)", file=sys.stderr)
        return 2
    if a.resume:
        RESUME.append("--resume")
    chosen = [by_name[n] for n in a.names] if a.names else claim_ledger.CLAIMS
    out = a.out or tempfile.mkdtemp(prefix="ciosim-claims-")
    rows, failed = [], 0
    try:
        for c in chosen:
            try:
                runs = run_points(c, a.build, os.path.join(out, c.name, "base"), [], a.j)
                verdict, evidence = judge(c, runs)
                robust = robustness(c, runs, verdict, a.build, os.path.join(out, c.name), a.j) \
                    if a.robustness and c.depends else ""
            except Exception as e:  # noqa: BLE001 (a judge's bug fails its claim, not the ledger)
                print(f"{c.name}: FAILED: {e}", file=sys.stderr)
                failed += 1
                continue
            rows.append((c, verdict, evidence, robust))
            print(f"{c.name}: {verdict}: {evidence}" + (f" [{robust}]" if robust else ""), flush=True)
    finally:
        if not a.out:
            shutil.rmtree(out, ignore_errors=True)
    if a.verify:
        recorded = ledger_verdicts(os.path.join(ROOT, "docs", "claims.md"))
        for c, verdict, _, _ in rows:
            if recorded.get(c.name) != verdict:
                print(f"{c.name}: {verdict}, but docs/claims.md records {recorded.get(c.name)}", file=sys.stderr)
                failed += 1
    if a.markdown and not failed:
        tmp = a.markdown + ".tmp"
        with open(tmp, "w") as f:
            f.write(claim_ledger.PREAMBLE + "\n" + markdown(rows) + moving(rows) +
                    "\nThe uncertain values varied:\n\n" + parameters_table())
        os.replace(tmp, a.markdown)
    elif a.markdown:
        print(f"claims.py: {failed} claims failed; {a.markdown} left as it was", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
