"""2,000 clean cycles with realistic noise (motion jitter, bouncing count sensors):
the supervision must not raise a single fault."""

from __future__ import annotations

from mjtable_core.config import load_config
from simulator.run import simulate
from tests.conftest import quick

CYCLES = 2000


def test_two_thousand_noisy_clean_cycles_raise_no_fault() -> None:
    config = quick(load_config(), 10.0)
    assert config.simulator.timing_jitter > 0 and config.simulator.count_bounce > 0
    report = simulate(config, CYCLES, seed=2026)
    assert report["faults"] == []
    assert report["cycles_completed"] == CYCLES
    assert report["tiles_accounted"] and report["wrong_handoffs"] == 0
