"""Build time, build efficiency, simulation speed and memory of the simulated table.

    python -m bench.table.bench_cycle [--builds 50] [--cycles 200] [--runs 5]

- build: median simulated build of a nominal 144-tile set over `--builds` builds, and
  the median build an ideal controller gets from the same machine (`ideal_build_s`,
  from the config alone: the disc and ring deliver each side's tiles at random at
  `arrival_rate_per_side`, as the simulated disc does, the belt's transit and the
  head's turn; the controller reacts at once and never waits). Efficiency = ideal
  median / median build. Neither is made from the firmware's own tile arrivals, so
  the firmware's waits (reaction to each arrival, pauses on full belts) all show as
  lost efficiency. A build ends at the last stack, before the sweep for extra tiles.
  `mechanical_bound_s` is the same machine at the disc's mean rate on every side: it
  is no bound, as the disc is random (single builds beat it) and the set is built
  when its slowest side is.
- speed factor: simulated seconds per wall second of `simulate` over `--cycles`
  hands, median of `--runs` runs (the machine is shared and noisy), for the
  reference 300 s hands and for 10 s hands; and the wall milliseconds per hand of
  each. Long hands are mostly idle play, which a virtual clock skips for free: the
  10 s figure says what the firmware and the machine cost per hand.
- peak RSS of the process after those runs (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics

from mjtable_core.config import Config, load_config
from simulator.harness.run import simulate


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


def ideal_build_s(config: Config, trials: int = 4001, seed: int = 0) -> float:
    """The median build of an ideal controller on this machine, from its config alone.

    Per side, the disc and ring deliver `tiles_per_side` tiles at random (exponential
    gaps at `arrival_rate_per_side`, as the simulated disc delivers them); each tile
    crosses the belt in `belt_transit_s` and takes one head turn of the shortest time
    the motor's noise allows, turns back to back at the earliest. The set is built
    when its slowest side is. Belt capacity and the head's slot are left out, so an
    ideal build is never slower than this one.
    """
    sim = config.simulator
    n, r, transit = config.tiles_per_side, sim.arrival_rate_per_side, sim.belt_transit_s
    turn = sim.head_turn_s * (1 - sim.timing_jitter)
    rng = random.Random(seed)
    builds = []
    for _ in range(trials):
        built = 0.0
        for _side in config.geometry.sides:
            arrived = free = 0.0
            for _tile in range(n):
                arrived += rng.expovariate(r)
                free = max(arrived + transit, free) + turn
            built = max(built, free)
        builds.append(built)
    return statistics.median(builds)


def build_figures(builds: int = 50, seed: int = 1) -> dict[str, float]:
    config = load_config()
    report = simulate(config, max(1, builds - 1), seed=seed)
    actual = report["build_times_s"][:builds]
    ideal = ideal_build_s(config)
    median = statistics.median(actual)
    return {
        "builds": len(actual),
        "build_median_s": round(median, 2),
        "build_min_s": min(actual),
        "build_max_s": max(actual),
        "build_ideal_s": round(ideal, 2),
        "build_bound_s": round(mechanical_bound_s(config), 2),
        "build_efficiency": round(ideal / median, 4),
    }


def speed_factor(cycles: int = 200, runs: int = 5,
                 play_time_s: float | None = None) -> dict[str, float]:
    """Simulated seconds per wall second and wall ms per hand, median over `runs`.

    `play_time_s` replaces the config's hand of play (None: the reference 300 s)."""
    config = load_config()
    if play_time_s is not None:
        config = config.with_play_time(play_time_s)
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
    parser = argparse.ArgumentParser(prog="python -m bench.table.bench_cycle")
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
