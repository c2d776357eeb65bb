"""1,000 clean cycles with realistic noise (motion jitter, bouncing count sensors):
the supervision must not raise a single fault. Longer runs of the same kind are
`mjtable simulate --cycles N --seed S` (the closing notes give their figures)."""

from __future__ import annotations

import functools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from simulator.harness.run import simulate
from simulator.harness.runner import Harness
from simulator.rigs import rig as rigs
from simulator.scenario import Scenario
from tests.conftest import quick

CYCLES = 1000
# Two tables of 500 cycles with their own noise, side by side on two cores (1,000 cycles
# are ~55 s of CPU, the largest single cost of `make test`; the suite must stay under 8
# minutes). A run as long as the table's first months is the next test's.
SEEDS = (2026, 2027)


def clean_run(seed: int, cycles: int) -> dict[str, Any]:
    """One table's run, in a process of its own: what the assertions read."""
    report = simulate(quick(load_config(), 10.0), cycles, seed=seed)
    return {key: report[key] for key in ("faults", "cycles_completed", "tiles_accounted",
                                         "wrong_handoffs")}


# CPU-bound on the virtual clock (no race): a machine shared with another test run
# makes it several times slower, which must not read as a failure.
@pytest.mark.timeout(1500)
def test_a_thousand_noisy_clean_cycles_raise_no_fault() -> None:
    config = quick(load_config(), 10.0)
    assert config.simulator.timing_jitter > 0 and config.simulator.count_bounce > 0
    each = CYCLES // len(SEEDS)
    # spawn, not fork: the test process may hold other tests' threads.
    with ProcessPoolExecutor(len(SEEDS), mp_context=multiprocessing.get_context("spawn")) as pool:
        reports = dict(zip(SEEDS, pool.map(clean_run, SEEDS, [each] * len(SEEDS)),
                           strict=True))
    for seed, report in reports.items():
        assert report["faults"] == [], seed
        assert report["cycles_completed"] == each, seed
        assert report["tiles_accounted"] and report["wrong_handoffs"] == 0, seed
    assert sum(r["cycles_completed"] for r in reports.values()) == CYCLES


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
