#!/usr/bin/env python3
"""Command-line fuzzer: random command lines of ciosim's subcommands, seeded from the shipped scenarios.

Usage: scripts/fuzz_cli.py [--seconds N] [--seed S] [--timeout T] [--out DIR] [BUILD_DIR]

Every subcommand that neither launches MPI nor runs a program of the user's (run, plan, list, plot,
advise, merge) is given random flags taken from its own --help (so new flags are fuzzed without editing
this file), random --set keys from `ciosim list --keys` with values from `ciosim list --choices` or a pool
of absurd ones (0, -1, 2^63, 1e300, nan, "", a FIFO, a directory, /dev/zero, ...), and a shipped scenario,
a results folder or a hostile path as its argument. Each command runs in a scratch folder, with stdin from
/dev/null, a 4 GiB address-space limit (as clusters set `ulimit -v`) and a time limit. A finding is

- a crash: a signal, or an exit status other than 0, 1 and 2;
- exit 2 (bad input) without exactly one line on stderr, or exit 1 (a failure) with nothing on stderr;
- a hang: still running at the time limit having used under a tenth of the wall time in CPU (blocked, not
  busy: a busy command past the limit is a long simulation and is only counted);
- a changed input: the scenario copies and the other files the command was given, hashed before and after.

Each finding is written to DIR/finding-N.txt (the command, its status, stderr) and the run exits 1; the
same --seed tries the same commands in the same order (CI runs --seed 1). docs/fuzzing.md says more.
"""
import argparse
import glob
import hashlib
import os
import random
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

SUBCOMMANDS = ["run", "plan", "list", "plot", "advise", "merge"]
INTS = ["0", "1", "2", "3", "4", "8", "16", "-1", "2147483648", "9223372036854775807",
        "99999999999999999999", "1e3", "0x10", " 4", "four"]
REALS = ["0", "0.5", "-0.0", "1e300", "1e-300", "nan", "inf", "-inf", "1e9", "3.0e8"]
WORDS = ["", " ", "x", "none", "auto", "[]", "[1,2]", "[\"a\",1]", "{}", "\"q\"", "a=b", "é", "results",
         "8GiB", "1B", "0B", "1/0", "2/1", "1/2", "svg", "png", "chrome", "paje", "toml", "json", "on"]
PATHS = ["", ".", "out", "fifo", "dir", "file.txt", "/dev/null", "/dev/zero", "missing/deeper/out",
         "scenario.toml", "results/r", "a b", "-q", "link"]
LIMIT_AS = 4 << 30


def help_flags(ciosim, sub):
    """[(flag, takes_value)] from `ciosim SUB --help`: a line "  -x,--long TYPE   description" takes a
    value when a type follows the flag before the description (two or more spaces)."""
    out = subprocess.run([ciosim, sub, "--help"], capture_output=True, text=True).stdout
    flags = []
    for line in out.splitlines():
        if not line.startswith("  -"):
            continue
        spec = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split(" ")
        names = [n for n in spec[0].split(",") if n.startswith("--")]
        if not names or names[0] == "--help":
            continue
        flags.append((names[0], len(spec) > 1))
    return flags


def value_for(rng):
    return rng.choice(rng.choice([INTS, REALS, WORDS, PATHS]))


def set_value(rng, ciosim, keys, choices_cache):
    key = rng.choice(keys)
    if key not in choices_cache:
        r = subprocess.run([ciosim, "list", "--choices", key], capture_output=True, text=True)
        choices_cache[key] = r.stdout.split() if r.returncode == 0 else []
    options = choices_cache[key] + INTS + REALS + WORDS[:8]
    if rng.random() < 0.1:
        key = rng.choice(["no.such", "run.", "workload..nx", "run.algorithm.x", "Run.ranks"])
    return f"{key}={rng.choice(options)}"


def prepare(scratch, scenarios, results):
    """The files a command may be given: copies of shipped scenarios (with their data next to them), a FIFO,
    a directory, a file, a link, a results folder. Returns the inputs to hash."""
    shutil.copytree(os.path.join(ROOT, "scenarios"), os.path.join(scratch, "scenarios"))
    shutil.copy(scenarios[0], os.path.join(scratch, "scenario.toml"))
    os.mkfifo(os.path.join(scratch, "fifo"))
    os.mkdir(os.path.join(scratch, "dir"))
    with open(os.path.join(scratch, "file.txt"), "w") as f:
        f.write("a user's file\n")
    os.symlink("file.txt", os.path.join(scratch, "link"))
    if results:
        shutil.copytree(results, os.path.join(scratch, "results", "r"))


def digest(scratch):
    """Hashes of the inputs a command must never change, by their path in the scratch folder."""
    out = {}
    for path in sorted(glob.glob(os.path.join(scratch, "scenarios", "**", "*"), recursive=True)) + [
            os.path.join(scratch, "scenario.toml"), os.path.join(scratch, "file.txt")]:
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                out[os.path.relpath(path, scratch)] = hashlib.sha256(f.read()).hexdigest()
    return out


def command(rng, ciosim, flags, keys, choices, scenarios):
    sub = rng.choice(SUBCOMMANDS)
    args = [sub]
    if sub in ("run", "plan", "advise"):
        if rng.random() < 0.9:
            args.append(rng.choice(scenarios + ["scenario.toml"]) if rng.random() < 0.85 else rng.choice(PATHS))
    elif sub == "plot":
        args.append(rng.choice(["results/r", "results/r", "dir", "fifo", "missing", "file.txt", ""]))
    elif sub == "merge":
        args += [rng.choice(["merged", "dir", "results/r", "file.txt", ""])] + rng.sample(
            ["results/r", "dir", "missing", "fifo"], rng.randint(0, 2))
    for _ in range(rng.randint(0, 4)):
        flag, takes = rng.choice(flags[sub])
        args.append(flag)
        if flag == "--set":
            args.append(set_value(rng, ciosim, keys, choices))
        elif takes:
            args.append(value_for(rng))
    if sub == "run" and rng.random() < 0.6:
        args.append("--dry-run")  # most run commands stop before simulating: more commands per second
    if sub in ("run", "advise") and "-q" not in args:
        args.append("-q")
    return [ciosim] + args


def group_cpu(pgid):
    """CPU seconds used so far by the processes of group `pgid` (ciosim run simulates each point in a
    child process), with the children they have already waited for."""
    total = 0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields from the state on: state, ppid, pgrp, ..., utime at 11
            total += sum(int(x) for x in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


def run_one(cmd, scratch, timeout):
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))
        os.setsid()
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=scratch, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=limits)
    try:
        _, err = p.communicate(timeout=timeout)
        return p.returncode, err.decode(errors="replace"), None
    except subprocess.TimeoutExpired:
        cpu = group_cpu(p.pid)
        os.killpg(p.pid, 9)
        _, err = p.communicate()
        return None, err.decode(errors="replace"), (time.monotonic() - start, cpu)


def judge(code, err, slow, before, after):
    lines = [l for l in err.splitlines() if l.strip()]
    if slow is not None:
        wall, cpu = slow
        return f"hang: still running after {wall:.0f} s having used {cpu:.1f} s of CPU" if cpu < 0.1 * wall else ""
    if code < 0:
        return f"crash: killed by signal {-code}"
    if code not in (0, 1, 2):
        return f"exit status {code}"
    if code == 2 and len(lines) != 1:
        return f"bad input (exit 2) said in {len(lines)} lines, not one"
    if code == 1 and not lines:
        return "failed (exit 1) without saying why"
    changed = [os.path.basename(k) for k in before if after.get(k) != before[k]]
    if changed:
        return "changed its inputs: " + ", ".join(changed[:5])
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--out", default=None, help="where findings go (default BUILD/fuzz-cli)")
    a = ap.parse_args()
    ciosim = os.path.abspath(os.path.join(a.build, "ciosim"))
    if not os.access(ciosim, os.X_OK):
        sys.exit(f"fuzz_cli.py: {ciosim} is not built")
    out = a.out or os.path.join(a.build, "fuzz-cli")
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "finding-*.txt")):
        os.remove(old)
    rng = random.Random(a.seed)
    flags = {s: help_flags(ciosim, s) or [("--help", False)] for s in SUBCOMMANDS}
    keys = subprocess.run([ciosim, "list", "--keys"], capture_output=True, text=True, check=True).stdout.split()
    scenarios = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "scenarios", "*.toml")))
    # A small results folder for plot and merge: the quickstart at Bx = 64 on 2 ranks.
    results = tempfile.mkdtemp(prefix="ciosim-fuzz-cli-results-")
    subprocess.run([ciosim, "run", os.path.join(ROOT, "scenarios", "quickstart.toml"), "-q", "--out", results,
                    "--set", "workload.bx=64", "-n", "2"], check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL)
    # Every scratch folder is prepared alike: the inputs' hashes before a command are these.
    template = tempfile.mkdtemp(prefix="ciosim-fuzz-cli-")
    try:
        prepare(template, scenarios, results)
        before = digest(template)
    finally:
        shutil.rmtree(template, ignore_errors=True)
    choices, findings, tried, slow, counts = {}, 0, 0, 0, {0: 0, 1: 0, 2: 0}
    deadline = time.monotonic() + a.seconds
    try:
        while time.monotonic() < deadline:
            cmd = command(rng, ciosim, flags, keys, choices, scenarios)
            scratch = tempfile.mkdtemp(prefix="ciosim-fuzz-cli-")
            try:
                prepare(scratch, scenarios, results)
                code, err, took = run_one(cmd, scratch, a.timeout)
                after = digest(scratch)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            tried += 1
            if took is not None:
                slow += 1
            elif code in counts:
                counts[code] += 1
            why = judge(code, err, took, before, after)
            if why:
                findings += 1
                text = shlex.join(["ciosim"] + cmd[1:])
                with open(os.path.join(out, f"finding-{findings}.txt"), "w") as f:
                    f.write(f"{why}\n{text}\nstatus: {code}\nstderr:\n{err}")
                print(f"finding {findings}: {why}: {text}", file=sys.stderr)
    finally:
        shutil.rmtree(results, ignore_errors=True)
    print(f"fuzz_cli.py: {tried} commands in {a.seconds:.0f} s (seed {a.seed}): exit 0 {counts[0]}, "
          f"exit 1 {counts[1]}, exit 2 {counts[2]}, past the time limit while busy {slow}; "
          f"{findings} finding(s){' in ' + out if findings else ''}")
    sys.exit(1 if findings else 0)


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if __name__ == "__main__":
    main()
