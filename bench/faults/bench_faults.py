"""Fault detection: latency per fault kind, and false alarms on clean noisy cycles.

    python -m bench.faults.bench_faults [--clean-cycles 2000]

- latency: for every scenario in tests/scenarios/, the simulated time from the moment
  a fault is injected to the first fault the firmware raises after it (for faults that
  act later, such as a missing tile or a jam that waits for the next head turn, this
  includes the wait for the mechanism to meet the fault). Reported per fault kind as
  the median and range over the scenarios that inject it.
- false alarms: faults raised over `--clean-cycles` clean cycles with the simulator's
  realistic noise on (motion jitter ±3 %, 5 % of count edges bouncing).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict

from mjtable_core.config import load_config
from simulator.harness.run import simulate
from simulator.harness.runner import Harness
from simulator.scenario import example_scenarios, load_scenario


def _quick(config, play_time_s: float):

    return config.with_play_time(play_time_s)


def latencies() -> dict[str, dict[str, float]]:
    seen: dict[str, list[float]] = defaultdict(list)
    for path in example_scenarios():
        scenario = load_scenario(path)
        report = Harness(_quick(load_config(), 60.0), scenario).run()
        for kind, latency in report["detection_latency_s"].items():
            seen[kind].append(latency)
    return {kind: {"median_s": round(statistics.median(values), 3),
                   "min_s": min(values), "max_s": max(values), "scenarios": len(values)}
            for kind, values in sorted(seen.items())}


def false_alarms(cycles: int) -> dict[str, object]:
    start = time.perf_counter()
    report = simulate(_quick(load_config(), 10.0), cycles, seed=2026)
    return {"clean_cycles": report["cycles_completed"],
            "false_alarms": len(report["faults"]),
            "fault_ids": sorted({f["id"] for f in report["faults"]}),
            "wall_s": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.faults.bench_faults")
    parser.add_argument("--clean-cycles", type=int, default=2000)
    args = parser.parse_args()
    print(json.dumps({"detection_latency": latencies(),
                      **false_alarms(args.clean_cycles)}, indent=2))


if __name__ == "__main__":
    main()
