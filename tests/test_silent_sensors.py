"""Sensors that fail silent: a side's `full` stuck dark raises nothing by itself; not
seen lit over SILENT_BUILDS builds it is a maintenance warning naming it (W97), and a
working table over as many builds never says so; on both tables."""

from __future__ import annotations

import pytest

from firmware.diagnosis.silent import SILENT_BUILDS
from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import Expect, FaultSpec, Scenario

from .conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(300)
CYCLES = SILENT_BUILDS + 3


def _run(table: str, faults: tuple[FaultSpec, ...]) -> dict:
    scenario = Scenario(seed=3, cycles=CYCLES, source="silent", faults=faults,
                        expect=Expect(allow=tuple(CATALOGUE)))
    return Harness(quick(load_config(CONFIGS[table]), 2.0), scenario).run()


@pytest.mark.parametrize("table", ["144", "136"])
def test_a_full_sensor_stuck_dark_is_a_maintenance_warning_naming_it(table) -> None:
    report = _run(table, (FaultSpec("sensor_stuck", "side.2.full", 1, phase="build",
                                    value=False),))
    (silent,) = [f for f in report["faults"] if f["id"] == "sensor.silent"]
    assert silent["code"] == "W97" and silent["where"] == "side.2.full"
    assert silent["diagnosis"]["suspects"][0]["part"] == "side.2.full"
    assert report["cycles_completed"] == CYCLES        # a warning: play goes on


@pytest.mark.parametrize("table", ["144", "136"])
def test_a_working_table_never_says_a_sensor_is_silent(table) -> None:
    report = _run(table, ())
    assert not [f for f in report["faults"] if f["id"] == "sensor.silent"]
    assert report["cycles_completed"] == CYCLES
