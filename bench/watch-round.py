#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""watch-round.py: times the rounds of a running `rt-report --watch` after a step is appended,
and prints "LABEL<TAB>median round s<TAB>peak RSS MiB<TAB>median CPU s" as interleave.py does.

A round of a watch is not a process of its own: a fresh rt-report of the same tree costs what
a first round costs, not what a round of a watch that has run for hours does. So the watch runs
on: each time it writes a page, the next step folder of POOL (in step order) is moved into EXP,
and the round that follows reads it. Its time is the one the watch prints ("written in S s":
the load of what changed, the analyses, the page); its CPU is the process's user + system time
between the two pages (the wait between rounds sleeps); the peak RSS is the watch's own
(VmHWM) once the last round is done.

Usage: watch-round.py RUNS LABEL POOL EXP -- COMMAND [ARGS...]
COMMAND must be an rt-report --watch 1 of EXP (without --quiet: the page lines are read).
"""
import os
import re
import statistics
import subprocess
import sys

WRITTEN = re.compile(r" written in ([0-9.]+) s ")


def cpu_s(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime, stime


def peak_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024   # kB
    return float("nan")


def next_step(pool):
    steps = [d for d in os.listdir(pool) if re.fullmatch(r"step_[0-9]+", d)]
    if not steps:
        sys.exit(f"bench: {pool} has no step folder left to append")
    return min(steps, key=lambda d: int(d[5:]))


def main():
    if len(sys.argv) < 7 or sys.argv[5] != "--":
        sys.exit(__doc__)
    runs, label, pool, exp, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[6:]
    watch = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rounds, cpus = [], []
    try:
        pages = 0
        cpu_before = None
        for line in watch.stdout:
            m = WRITTEN.search(line)
            if not m:
                continue
            pages += 1
            cpu_now = cpu_s(watch.pid)
            if pages > 1:   # the round that read the step moved in after the page before
                rounds.append(float(m.group(1)))
                cpus.append(cpu_now - cpu_before)
            if len(rounds) == runs:
                break
            step = next_step(pool)
            os.rename(os.path.join(pool, step), os.path.join(exp, step))
            cpu_before = cpu_s(watch.pid)
        if len(rounds) < runs:
            sys.exit(f"bench: the watch ended after {pages} pages: {' '.join(command)}")
        peak = peak_mib(watch.pid)
    finally:
        watch.terminate()
        watch.wait()
    print(f"{label}\t{statistics.median(rounds):.4f}\t{peak:.1f}\t{statistics.median(cpus):.4f}", flush=True)


if __name__ == "__main__":
    main()
