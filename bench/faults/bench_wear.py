"""Wear seen before it fails: a motor slowed 5 % a week gets a maintenance warning
before its first stop-fault?

    python -m bench.faults.bench_wear [--runs 10] [--week-hands 10] [--json]

Each run is a long soak of the reference table (hands of 30 s play) with the stacking
head of side 2 ageing (simulator/fuzz/aging.py): 5 % slower each simulated week of use
(`--week-hands` hands), compounded, until it stalls at a slowness drawn per run
between 1.2 and 2.0 times new (the point where friction beats the motor is not known
in advance). A run counts when the table's wear trend (firmware/diagnosis/wear.py) warned about
that head at that side before the first stop-fault. Prints each run and the figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from mjtable_core.config import load_config, reference_config
from simulator.fuzz.aging import soak

PLAY_TIME_S = 30.0
HAND_S = 58.0           # simulated seconds per hand of this config (measured)
STALL_RANGE = (1.2, 2.0)


def measure(runs: int = 10, week_hands: float = 10.0, seed: int = 1) -> dict[str, Any]:
    config = load_config(reference_config()).with_play_time(PLAY_TIME_S)
    draw = random.Random(seed)
    results = []
    for i in range(runs):
        stall_at = round(draw.uniform(*STALL_RANGE), 3)
        start = time.perf_counter()
        result = soak(config, "motor.side.2.head", 2, seed=seed + i, week_hands=week_hands,
                      stall_at=stall_at, hand_s=HAND_S)
        result["wall_s"] = round(time.perf_counter() - start, 1)
        results.append(result)
        warned, stopped = result["warned"], result["stopped"]
        print(f"run {i + 1}: stall at x{stall_at}: warned at hand "
              f"{warned and warned['hand']} (x{warned and warned['factor']}, "
              f"{warned and warned['percent']} % slower), first stop-fault at hand "
              f"{stopped and stopped['hand']} ({stopped and stopped['id']}) -> "
              f"{'warned first' if result['warned_first'] else 'NOT warned first'} "
              f"[{result['wall_s']} s]", flush=True)
    lead = [r["stopped"]["hand"] - r["warned"]["hand"] for r in results
            if r["warned_first"] and r["warned"] and r["stopped"]]
    return {"runs": runs, "week_hands": week_hands,
            "warned_first": sum(r["warned_first"] for r in results),
            "lead_hands_median": statistics.median(lead) if lead else None,
            "lead_weeks_median": round(statistics.median(lead) / week_hands, 1) if lead
            else None, "results": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--week-hands", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.runs, args.week_hands, args.seed)
    if args.json:
        print(json.dumps(figures))
    print(f"warned before the first stop-fault: {figures['warned_first']} of "
          f"{figures['runs']} runs; median lead {figures['lead_hands_median']} hands "
          f"({figures['lead_weeks_median']} weeks of use)")


if __name__ == "__main__":
    main()
