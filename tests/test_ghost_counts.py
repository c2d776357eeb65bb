"""A count sensor that ghosts (flickers 0.01–0.1 times a second): counted against its
own side, it is named first, at its side, or its flickers are filtered and the hand is
dealt. E51 where a leftover arrives names the side that lost it, never "foreign tiles"
first; on both tables."""

from __future__ import annotations

import pytest

from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import load_config
from simulator.harness.diagnosis_judge import judge
from simulator.harness.runner import Harness
from simulator.scenario import ActionSpec, Expect, FaultSpec, Scenario

from .conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(300)

# (table, seed): seeds where the flickering sensor was named below "foreign tiles".
CASES = [("144", 0), ("136", 6), ("136", 9), ("144", 5), ("136", 11), ("144", 7)]


@pytest.mark.parametrize(("table", "seed"), CASES)
def test_a_ghosting_count_sensor_is_named_first_at_its_side(table, seed) -> None:
    side, rate = seed % 4, (0.01, 0.03, 0.1)[seed % 3]
    sensor = f"side.{side}.count"
    scenario = Scenario(
        seed=seed, cycles=3, source="ghost",
        faults=(FaultSpec("sensor_flaky", sensor, 2, phase="build", probability=rate),),
        actions=(ActionSpec(after_fault="build.extra_tiles", do="replace_part", where=sensor),
                 ActionSpec(after_fault="count.double", do="replace_part", where=sensor)),
        expect=Expect(allow=tuple(CATALOGUE)))
    report = Harness(quick(load_config(CONFIGS[table]), 30.0), scenario).run()
    verdict = judge(report)
    assert verdict is None or verdict["verdict"] in ("first", "undetected"), report["faults"]
    for fault in report["faults"]:
        suspects = fault["diagnosis"].get("suspects") or []
        if fault["id"] in ("build.extra_tiles", "sensor.flaky", "count.double"):
            assert suspects[0]["part"] == sensor, (fault["id"], suspects)
    assert report["referee_violations"] == []
