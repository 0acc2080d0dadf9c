#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make_console_log.py: writes a trainer console log of about SIZE_MB megabytes for the benchmark.

Like a real verl run's: mostly noise (Ray-prefixed output, tqdm bars with carriage returns, ANSI
colours, warnings), one metric line per step with about 120 metrics. Deterministic.
Usage: make_console_log.py OUT SIZE_MB
"""
import random
import sys


def main(out, size_mb):
    rng = random.Random(1)
    names = [f"timing_s/{n}" for n in ("gen", "reward", "old_log_prob", "ref", "adv", "update_actor", "step")]
    names += [f"timing_per_token_ms/{n}" for n in ("gen", "update_actor", "adv")]
    names += [f"actor/metric_{i}" for i in range(60)] + [f"critic/score/stat_{i}" for i in range(40)]
    names += ["perf/throughput", "perf/total_num_tokens", "response_length/mean"]
    target = size_mb * 1_000_000
    written, step = 0, 0
    with open(out, "w") as f:
        while written < target:
            step += 1
            noise = []
            for i in range(200):
                noise.append(f"\x1b[36m(WorkerDict pid={rng.randint(1000, 99999)})\x1b[0m INFO generating batch {i}: "
                             f"prompt tokens {rng.randint(10, 4000)}, response tokens {rng.randint(10, 4000)}")
                if i % 50 == 0:
                    noise.append(f"Training Progress: {step % 100:3d}%|####      | {step}/1000 [12:00<30:00]\r")
                    noise.append("WARNING: the attention mask is not set; results may be unexpected")
            metrics = " - ".join(f"{n}:{rng.random() * 100!r}" for n in names)
            lines = "\n".join(noise) + f"\n(TaskRunner pid=4242) step:{step} - {metrics}\n"
            f.write(lines)
            written += len(lines)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
