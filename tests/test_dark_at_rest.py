"""A home sensor that goes dark while its mechanism rests (motor off, nothing
commanded) is that sensor, named first and described as it failed (gone dark / open),
never the motor and never "stuck active"; on both tables."""

from __future__ import annotations

import pytest

from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import load_scenario

from .conftest import CONFIGS, ROOT, quick

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("table", ["144", "136"])
@pytest.mark.parametrize(("name", "fault_id", "part"), [
    ("plate_home_dark_at_rest", "plate.stuck", "side.2.plate_home"),
    ("head_home_dark_at_rest", "head.jam", "side.1.head_home"),
])
def test_a_home_gone_dark_at_rest_is_its_sensor_first(table, name, fault_id, part) -> None:
    scenario = load_scenario(ROOT / "tests" / "scenarios" / f"{name}.toml")
    harness = Harness(quick(load_config(CONFIGS[table]), 60.0), scenario)
    report = harness.run()
    (fault,) = [f for f in report["faults"] if f["id"] == fault_id]
    first = fault["diagnosis"]["suspects"][0]
    assert first["part"] == part
    assert "gone" in first["cause"] and "stuck active" not in first["cause"]
    assert not any(s["part"].startswith("motor.") for s in fault["diagnosis"]["suspects"][:1])
    assert report["cycles_completed"] == 3 and report["referee_violations"] == []
