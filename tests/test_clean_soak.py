"""2,000 clean cycles with realistic noise (motion jitter, bouncing count sensors):
the supervision must not raise a single fault."""

from __future__ import annotations

import functools

import pytest

from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from simulator import rigs
from simulator.harness import Harness
from simulator.run import simulate
from simulator.scenario import Scenario
from tests.conftest import quick

CYCLES = 2000


# CPU-bound on the virtual clock (no race): a machine shared with another test run
# makes it several times slower, which must not read as a failure.
@pytest.mark.timeout(1500)
def test_two_thousand_noisy_clean_cycles_raise_no_fault() -> None:
    config = quick(load_config(), 10.0)
    assert config.simulator.timing_jitter > 0 and config.simulator.count_bounce > 0
    report = simulate(config, CYCLES, seed=2026)
    assert report["faults"] == []
    assert report["cycles_completed"] == CYCLES
    assert report["tiles_accounted"] and report["wrong_handoffs"] == 0


def test_a_table_that_has_run_for_months_raises_no_fault(monkeypatch) -> None:
    """Clean hands on a clock already at 2**24 s (194 days): the coarse floats of a
    long-running table must not stop a motion short of its sensor."""
    monkeypatch.setattr(rigs, "VirtualClock", functools.partial(VirtualClock, 2.0**24))
    config = quick(load_config(), 10.0)
    harness = Harness(config, Scenario(seed=7, cycles=20, source="<none>"), 7)
    assert harness.clock.now() == 2.0**24
    report = harness.run()
    assert report["faults"] == [] and report["problems"] == []
    assert report["cycles_completed"] == 20 and report["tiles_accounted"]
