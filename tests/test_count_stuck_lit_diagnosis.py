"""A count sensor stuck lit is named first by the count.blind it raises, not the head
home sensor whose odd edges behind it are its effect (both table sizes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import FaultSpec, Scenario

ROOT = Path(__file__).resolve().parent


@pytest.mark.parametrize("config", ["table.toml", "table-136.toml"])
def test_a_count_sensor_stuck_lit_is_named_first(config: str) -> None:
    stuck = FaultSpec(kind="sensor_stuck", where="side.1.count", value=True, cycle=2,
                      phase="raise")
    scenario = Scenario(seed=7, cycles=2, faults=(stuck,), play_time_s=20.0)
    report = Harness(load_config(ROOT.parent / "config" / config), scenario).run()
    fault = next(f for f in report["faults"] if f["id"] == "count.blind")
    assert fault["diagnosis"]["suspects"][0]["part"] == "side.1.count"
    assert "count sensor of side 1" in fault["diagnosis"]["test"]
