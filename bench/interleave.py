#!/usr/bin/env python3
"""interleave.py: times several commands side by side, as whole processes, in rotating order,
and prints "LABEL<TAB>median wall s<TAB>peak RSS MiB" for each (as measure.py does for one).

On a shared, noisy machine the load changes from minute to minute: running A, B, C, then B, C,
A, then C, A, B... gives each command the same share of quiet and busy moments, so their
medians can be compared (and their ratios trusted) where back-to-back series cannot.

Usage: interleave.py RUNS LABEL=SHELL-COMMAND [LABEL=SHELL-COMMAND...]
Each command runs under `sh -c` (start it with `exec` to leave no shell around it); its output
is discarded, and a failure stops everything. Wall time is measured from here around the
process; peak RSS comes from one more run of each under /usr/bin/time (see measure.py).
With RT_INTERLEAVE_RUNS_FILE set, every run's time is also appended there (label, run, s).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(label, command, wrapper=()):
    start = time.perf_counter()
    result = subprocess.run([*wrapper, "sh", "-c", command], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.stderr.write(result.stderr.decode(errors="replace"))
        sys.exit(f"bench: {label} failed (exit {result.returncode}): {command}")
    return wall


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
    log = os.environ.get("RT_INTERLEAVE_RUNS_FILE")
    for i in range(runs):
        for k in range(len(commands)):
            label, command = commands[(i + k) % len(commands)]
            w = run(label, command)
            walls[label].append(w)
            if log:
                with open(log, "a") as f:
                    f.write(f"{label}\t{i}\t{w:.4f}\n")
    for label, command in commands:
        print(f"{label}\t{statistics.median(walls[label]):.4f}\t{peak_mib(label, command):.1f}", flush=True)


if __name__ == "__main__":
    main()
