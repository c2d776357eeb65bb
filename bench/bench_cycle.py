"""Build time, build efficiency, simulation speed and memory of the simulated table.

    python -m bench.bench_cycle [--builds 50] [--cycles 200] [--runs 5]

- build: median simulated build of a nominal 144-tile set over `--builds` builds, and
  the lower bound the simulated mechanics allow for the same builds (`build_bound`
  in simulator/run.py: each side's actual tile loading times replayed through an
  ideal head that reacts instantly). Efficiency = bound / actual, median over builds.
- speed factor: simulated seconds per wall second of `simulate` over `--cycles`
  hands, median of `--runs` runs (the machine is shared and noisy).
- peak RSS of the process after those runs (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics

from firmware.config import load_config
from simulator.run import simulate


def build_figures(builds: int = 50, seed: int = 1) -> dict[str, float]:
    report = simulate(load_config(), max(1, builds - 1), seed=seed)
    actual = report["build_times_s"][:builds]
    bound = report["build_bound_s"][:builds]
    return {
        "builds": len(actual),
        "build_median_s": round(statistics.median(actual), 2),
        "build_min_s": min(actual),
        "build_max_s": max(actual),
        "bound_median_s": round(statistics.median(bound), 2),
        "build_efficiency": round(statistics.median(b / a for b, a in zip(bound, actual,
                                                                          strict=True)), 4),
    }


def speed_factor(cycles: int = 200, runs: int = 5) -> dict[str, float]:
    factors = []
    for run in range(runs):
        report = simulate(load_config(), cycles, seed=100 + run)
        assert report["completed"], "a benchmark run must complete"
        factors.append(report["sim_time_s"] / report["wall_time_s"])
    return {"speed_factor": round(statistics.median(factors), 1),
            "speed_factor_runs": [round(f, 1) for f in factors],
            "cycles_per_run": cycles}


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_cycle")
    parser.add_argument("--builds", type=int, default=50)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    figures = {**build_figures(args.builds), **speed_factor(args.cycles, args.runs),
               "peak_rss_mb": peak_rss_mb()}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
