"""Build time, build efficiency, simulation speed and memory of the simulated table.

    python -m bench.bench_cycle [--builds 50] [--cycles 200] [--runs 5]

- build: median simulated build of a nominal 144-tile set over `--builds` builds, and
  the shortest build the machine's mechanics allow (`mechanical_bound_s`, from the
  config alone: the disc and ring's delivery rate per side, the belt's transit and
  the head's turn). Efficiency = bound / median build. The bound is not made from
  the firmware's own tile arrivals, so the firmware's waits (watchdog slack, the
  sweep for extra tiles, pauses on full belts) all show as lost efficiency.
- speed factor: simulated seconds per wall second of `simulate` over `--cycles`
  hands, median of `--runs` runs (the machine is shared and noisy), for the
  reference 300 s hands and for 10 s hands; and the wall milliseconds per hand of
  each. Long hands are mostly idle play, which a virtual clock skips for free: the
  10 s figure says what the firmware and the machine cost per hand.
- peak RSS of the process after those runs (ru_maxrss).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import statistics

from mjtable_core.config import Config, load_config
from simulator.run import simulate


def mechanical_bound_s(config: Config) -> float:
    """The shortest build of one set the machine allows, from its mechanics alone.

    Each side's `tiles_per_side` tiles leave the disc at `arrival_rate_per_side` r,
    cross the belt in `belt_transit_s`, and each takes one head turn h. Whichever is
    slower sets the pace: the last tile leaves the disc at n/r and is stacked a turn
    after it arrives, or the first arrives at 1/r and the head turns n times back to
    back. An ideal controller with instant reactions and no sweep would reach this.
    """
    sim = config.simulator
    n, r, h = config.tiles_per_side, sim.arrival_rate_per_side, sim.head_turn_s
    return sim.belt_transit_s + max(n / r + h, 1 / r + n * h)


def build_figures(builds: int = 50, seed: int = 1) -> dict[str, float]:
    config = load_config()
    report = simulate(config, max(1, builds - 1), seed=seed)
    actual = report["build_times_s"][:builds]
    bound = mechanical_bound_s(config)
    median = statistics.median(actual)
    return {
        "builds": len(actual),
        "build_median_s": round(median, 2),
        "build_min_s": min(actual),
        "build_max_s": max(actual),
        "build_bound_s": round(bound, 2),
        "build_efficiency": round(bound / median, 4),
    }


def speed_factor(cycles: int = 200, runs: int = 5,
                 play_time_s: float | None = None) -> dict[str, float]:
    """Simulated seconds per wall second and wall ms per hand, median over `runs`.

    `play_time_s` replaces the config's hand of play (None: the reference 300 s)."""
    config = load_config()
    if play_time_s is not None:
        config = dataclasses.replace(config, simulator=dataclasses.replace(
            config.simulator, play_time_s=play_time_s))
    factors, per_hand = [], []
    for run in range(runs):
        report = simulate(config, cycles, seed=100 + run)
        assert report["completed"], "a benchmark run must complete"
        factors.append(report["sim_time_s"] / report["wall_time_s"])
        per_hand.append(1000 * report["wall_time_s"] / report["cycles_completed"])
    return {"speed_factor": round(statistics.median(factors), 1),
            "speed_factor_runs": [round(f, 1) for f in factors],
            "ms_per_hand": round(statistics.median(per_hand), 2),
            "play_time_s": config.simulator.play_time_s,
            "cycles_per_run": cycles}


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_cycle")
    parser.add_argument("--builds", type=int, default=50)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    long_hands = speed_factor(args.cycles, args.runs)
    short_hands = speed_factor(args.cycles, args.runs, play_time_s=10.0)
    figures = {**build_figures(args.builds), "speed_300s_hands": long_hands,
               "speed_10s_hands": short_hands, "peak_rss_mb": peak_rss_mb()}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
