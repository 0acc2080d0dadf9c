#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""interleave.py: times several commands side by side, as whole processes, in rotating order,
and prints "LABEL<TAB>median wall s<TAB>peak RSS MiB<TAB>median CPU s" for each (the first three
as measure.py prints them for one; CPU is user + system time of the process and its children).

On a shared, noisy machine the load changes from minute to minute: running A, B, C, then B, C,
A, then C, A, B... gives each command the same share of quiet and busy moments, so their
medians can be compared (and their ratios trusted) where back-to-back series cannot.

Usage: interleave.py RUNS LABEL=SHELL-COMMAND [LABEL=SHELL-COMMAND...]
Each command runs under `sh -c` (start it with `exec` to leave no shell around it); its output
is discarded, and a failure stops everything. Wall time is measured from here around the
process; peak RSS comes from one more run of each under /usr/bin/time (see measure.py).
With RT_INTERLEAVE_RUNS_FILE set, every run's times are also appended there (label, run,
wall s, CPU s).
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(label, command, wrapper=()):
    """(wall s, CPU s) of one run"""
    cpu = cpu_seconds()
    start = time.perf_counter()
    result = subprocess.run([*wrapper, "sh", "-c", command], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    if result.returncode != 0:
        sys.stderr.write(result.stderr.decode(errors="replace"))
        sys.exit(f"bench: {label} failed (exit {result.returncode}): {command}")
    return wall, cpu


def peak_mib(label, command):
    with tempfile.NamedTemporaryFile("r") as out:
        run(label, command, ("/usr/bin/time", "-f", "%M", "-o", out.name))
        return int(out.read().split()[-1]) / 1024   # KiB


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    commands = [tuple(a.split("=", 1)) for a in sys.argv[2:]]
    walls = {label: [] for label, _ in commands}
    cpus = {label: [] for label, _ in commands}
    log = os.environ.get("RT_INTERLEAVE_RUNS_FILE")
    for i in range(runs):
        for k in range(len(commands)):
            label, command = commands[(i + k) % len(commands)]
            w, c = run(label, command)
            walls[label].append(w)
            cpus[label].append(c)
            if log:
                with open(log, "a") as f:
                    f.write(f"{label}\t{i}\t{w:.4f}\t{c:.4f}\n")
    for label, command in commands:
        print(f"{label}\t{statistics.median(walls[label]):.4f}\t{peak_mib(label, command):.1f}"
              f"\t{statistics.median(cpus[label]):.4f}", flush=True)


if __name__ == "__main__":
    main()
