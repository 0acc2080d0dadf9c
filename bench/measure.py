#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""measure.py: times a command as a whole process and prints
"LABEL<TAB>median wall s<TAB>peak RSS MiB".

Wall time: RUNS runs, each from just before the fork to the child's end, as measured here; the
median is printed. Measuring from here rather than through /usr/bin/time keeps that program's
own start-up (5-8 ms on the benchmark machine) out of the figures, which matters for commands
that take 20 ms. Peak RSS: one more run under /usr/bin/time. (A child of this Python process
would report Python's own memory as its peak: the kernel carries a process's high-water mark
across exec, so the RSS must come from a child of a small program.)
Usage: measure.py LABEL RUNS COMMAND [ARG...]   (the command's output is discarded)
"""
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv):
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.stderr.write(result.stderr.decode(errors="replace"))
        sys.exit(f"bench: failed (exit {result.returncode}): {' '.join(argv)}")


def wall_seconds(argv):
    start = time.perf_counter()
    run(argv)
    return time.perf_counter() - start


def peak_mib(argv):
    with tempfile.NamedTemporaryFile("r") as out:
        run(["/usr/bin/time", "-f", "%M", "-o", out.name] + argv)
        return int(out.read().split()[-1]) / 1024   # KiB


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    label, runs, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    walls = [wall_seconds(argv) for _ in range(runs)]
    print(f"{label}\t{statistics.median(walls):.4f}\t{peak_mib(argv):.1f}")


if __name__ == "__main__":
    main()
