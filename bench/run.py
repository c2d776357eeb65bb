"""`mjtable bench`: run the benchmarks and print their figures.

Figures are measured here, never asserted in tests. Each module in bench/ documents
how its figure is measured.
"""

from __future__ import annotations

import argparse
import json
import sys

from bench.bench_cycle import build_figures, peak_rss_mb, speed_factor
from bench.bench_deal import deals_per_second


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mjtable bench",
                                     description="Benchmarks of the simulated table.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--cycles", type=int, default=200,
                        help="hands per speed-factor run (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)
    builds = build_figures(50)
    speed = speed_factor(args.cycles, args.runs)
    figures = {
        "speed_factor": speed["speed_factor"],
        "speed_factor_runs": speed["speed_factor_runs"],
        "build_efficiency": builds["build_efficiency"],
        "build_median_s": builds["build_median_s"],
        "deals_per_s": round(deals_per_second("mcr", 1.0)),
        "rss_mb": peak_rss_mb(),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
