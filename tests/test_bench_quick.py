"""`mjtable bench --json --quick` prints every figure bench/README.md documents.

Figures are never asserted here (the machine running the tests is shared and noisy):
only that each is produced and is a number in a plausible unit.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

KEYS = ("speed_factor", "ms_per_hand_300s", "speed_factor_10s_hands", "ms_per_hand_10s",
        "build_efficiency", "build_ideal_s", "build_bound_s", "latency_p50_ms", "latency_p99_ms",
        "startup_s", "rss_mb", "deals_per_s", "score_ms_median", "firmware_cpu_ms_per_hand",
        "pi_zero2_ms_per_hand", "hands_per_cpu_s", "fuzz_per_cpu_min")


def test_quick_bench_prints_every_figure() -> None:
    result = subprocess.run([sys.executable, "-m", "mjtable.cli", "bench", "--json",
                             "--quick"], capture_output=True, text=True, cwd=ROOT,
                            timeout=240)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in KEYS:
        assert isinstance(figures[key], int | float) and figures[key] > 0, key
    assert figures["latency_p50_ms"] <= figures["latency_p99_ms"]
    assert figures["latency_faults"] == []


def test_the_build_bound_comes_from_the_mechanics() -> None:
    import dataclasses

    from bench.table.bench_cycle import mechanical_bound_s
    from mjtable_core.config import load_config

    config = load_config()
    # Reference table: 36 tiles a side at 1.7 tiles/s, 0.8 s belt, 0.45 s head turn:
    # delivery sets the pace.
    assert abs(mechanical_bound_s(config) - (0.8 + 36 / 1.7 + 0.45)) < 1e-9
    # A slow head sets it instead: first tile after 1/r, then 36 turns back to back.
    slow = dataclasses.replace(config, simulator=dataclasses.replace(
        config.simulator, head_turn_s=1.0))
    assert abs(mechanical_bound_s(slow) - (0.8 + 1 / 1.7 + 36 * 1.0)) < 1e-9


def test_the_efficiency_is_against_an_ideal_controller_on_the_same_random_disc() -> None:
    # The disc delivers at random: at its mean rate on every side (mechanical_bound_s)
    # is no bound; single builds beat it and the slowest of four sides is slower. The
    # reference is the median build of an ideal controller, from the config alone.
    import dataclasses

    from bench.table.bench_cycle import ideal_build_s, mechanical_bound_s
    from mjtable_core.config import load_config

    config = load_config()
    ideal = ideal_build_s(config, trials=801)
    assert ideal == ideal_build_s(config, trials=801)        # seeded: one figure
    assert ideal > mechanical_bound_s(config) + 1.0          # 26.3 s against 22.4 s
    # Delivery far faster than the head: the head's turns set the pace alone.
    sim = config.simulator
    fast = dataclasses.replace(config, simulator=dataclasses.replace(
        sim, arrival_rate_per_side=20.0, belt_transit_s=0.0))
    turns = 36 * sim.head_turn_s * (1 - sim.timing_jitter)
    assert turns < ideal_build_s(fast, trials=201) < turns + 0.5
