"""`mjtable bench`: run the benchmarks and print their figures.

Figures are measured here, never asserted in tests. bench/README.md says how each is
measured and what it should reach; each bench module (bench/table/, bench/rules/, …)
documents its own figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from typing import Any

from bench.helpers import children
from bench.rules import bench_score
from bench.rules.bench_deal import deals_per_second
from bench.table import bench_firmware, bench_latency, bench_startup
from bench.table.bench_cycle import build_figures, peak_rss_mb, speed_factor
from firmware.i18n import _


@dataclass(frozen=True)
class Sizes:
    """How much work each figure gets."""

    cycles: int = 200          # hands per speed-factor run
    runs: int = 3              # speed-factor runs (median)
    builds: int = 50           # builds for the efficiency
    events: int = 10000        # count edges for the latency
    starts: int = 5            # daemon starts (median)
    deal_s: float = 1.0        # seconds of dealing
    score_hands: int = 300     # declared wins scored per variant
    firmware_hands: int = 12   # hands profiled for the firmware's CPU (median hand)
    fuzz: int = 6              # fuzz scenarios for their rate
    cpu_hands: int = 100       # hands for the hands per CPU second


SHORT_HAND_S = 10.0         # hands of play for the second speed figure
QUICK = Sizes(cycles=2, runs=1, builds=3, events=200, starts=1, deal_s=0.1, score_hands=20,
              firmware_hands=3, fuzz=1, cpu_hands=2)


STEPS = 9


def progress(step: int, what: str) -> None:
    """One line on stderr per figure being measured: a bench of minutes is not silence
    (stdout keeps only the figures, for --json)."""
    print(_("mjtable bench: {step}/{steps} {what}…").format(step=step, steps=STEPS,
                                                           what=what),
          file=sys.stderr, flush=True)


def figures(sizes: Sizes, say: Any = progress) -> dict[str, Any]:
    """Every figure, in one dict (the keys bench/README.md documents)."""
    say(1, _("speed factor: {runs} × {cycles} hands").format(runs=sizes.runs,
                                                             cycles=sizes.cycles))
    speed = speed_factor(sizes.cycles, sizes.runs)
    say(2, _("speed factor with {s:g} s hands").format(s=SHORT_HAND_S))
    short = speed_factor(sizes.cycles, sizes.runs, play_time_s=SHORT_HAND_S)
    # ru_maxrss only grows: read it right after the simulate runs, before anything else.
    rss = peak_rss_mb()
    say(3, _("build efficiency: {n} builds").format(n=sizes.builds))
    builds = build_figures(sizes.builds)
    say(4, _("sensor latency: {n} edges").format(n=sizes.events))
    latency = bench_latency.measure(sizes.events)
    say(5, _("sensor latency under load"))
    loaded = bench_latency.measure(sizes.events, in_flight=4)
    say(6, _("daemon start-up: {n} starts").format(n=sizes.starts))
    startup = bench_startup.measure(sizes.starts)
    say(7, _("scoring: {n} hands a variant").format(n=sizes.score_hands))
    scoring = bench_score.measure(sizes.score_hands)
    say(8, _("firmware CPU: {n} hands").format(n=sizes.firmware_hands))
    firmware = bench_firmware.firmware_per_hand(sizes.firmware_hands)
    say(9, _("dealing"))
    return {
        "speed_factor": speed["speed_factor"],
        "ms_per_hand_300s": speed["ms_per_hand"],
        "speed_factor_10s_hands": short["speed_factor"],
        "ms_per_hand_10s": short["ms_per_hand"],
        "build_efficiency": builds["build_efficiency"],
        "latency_p50_ms": latency["latency_p50_ms"],
        "latency_p99_ms": latency["latency_p99_ms"],
        "startup_s": startup["startup_s"],
        "rss_mb": rss,
        "deals_per_s": round(deals_per_second("mcr", sizes.deal_s)),
        "score_ms_median": max(v["median_ms"] for v in scoring.values()),
        "firmware_cpu_ms_per_hand": firmware["firmware_cpu_ms_per_hand"],
        "pi_zero2_ms_per_hand": firmware["pi_zero2_ms_per_hand"],
        "hands_per_cpu_s": bench_firmware.hands_per_cpu_s(sizes.cpu_hands),
        "fuzz_per_cpu_min": bench_firmware.fuzz_per_cpu_min(sizes.fuzz),
        # Detail behind the headline figures.
        "speed_factor_runs": speed["speed_factor_runs"],
        "cycles_per_run": speed["cycles_per_run"],
        "build_median_s": builds["build_median_s"],
        "build_ideal_s": builds["build_ideal_s"],
        "build_bound_s": builds["build_bound_s"],
        "latency_max_ms": latency["latency_max_ms"],
        "latency_events": latency["events"],
        "latency_loaded_p99_ms": loaded["latency_p99_ms"],
        "latency_faults": latency["faults"] + loaded["faults"],
        "startup_runs_s": startup["startup_runs_s"],
        "score_ms_by_variant": scoring,
        "firmware_loop_cpu_ms_per_hand": firmware["firmware_loop_cpu_ms_per_hand"],
        "firmware_share": firmware["firmware_share"],
        "firmware_cpu_ms_hands": firmware["firmware_cpu_ms_hands"],
        "pi_zero2_factor": firmware["pi_zero2_factor"],
        "pi_zero2_core_share": firmware["pi_zero2_core_share"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mjtable bench",
                                     description=_("Benchmarks of the firmware and the "
                                                   "simulated table (bench/README.md)."))
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    parser.add_argument("--quick", action="store_true",
                        help=_("tiny sizes: checks that every figure is produced, in "
                               "seconds"))
    parser.add_argument("--cycles", type=int, help=_("hands per speed-factor run (200)"))
    parser.add_argument("--runs", type=int, help=_("speed-factor runs, median (3)"))
    parser.add_argument("--events", type=int, help=_("count edges for the latency (10000)"))
    args = parser.parse_args(argv)
    children.install()
    sizes = QUICK if args.quick else Sizes()
    overrides = {k: v for k in ("cycles", "runs", "events")
                 if (v := getattr(args, k)) is not None}
    if overrides:
        sizes = replace(sizes, **overrides)
    try:
        result = figures(sizes)
    except (KeyboardInterrupt, SystemExit) as exc:
        # Ctrl-C (or SIGTERM, bench/helpers/children.py): its children are stopped on the way
        # out; one line says so, never a traceback and never silence.
        code = exc.code if isinstance(exc, SystemExit) and isinstance(exc.code, int) else 130
        print(_("mjtable bench: interrupted; no figures"), file=sys.stderr, flush=True)
        return code
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
