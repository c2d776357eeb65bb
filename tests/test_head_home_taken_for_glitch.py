"""A flickering head home sensor whose real home was taken for a glitch is named first.

A lit glitch early in a turn re-anchors the turn, so the cam's real home a whole turn
later is rejected as too early: the pin stops the cam at home, the side waits for a home
it already had, and head.jam is raised with the sensor still lit. That evidence (the
stop seen in time and still lit, on a side whose sensor glitched) names the sensor
first; a real jam (the cam never home) still names the jam, a dead motor the motor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from firmware.faults.kinds.evidence import SideView
from firmware.faults.kinds.head import jam
from firmware.machines.supervisor import MIN_TRAVEL
from mjtable_core.config import load_config
from simulator.fuzz.batch import classify
from simulator.harness.diagnosis_judge import judge
from simulator.harness.runner import Harness
from simulator.scenario import load_scenario

from .conftest import ROOT

pytestmark = pytest.mark.timeout(120)

FUZZ_CASE = ROOT / "tests" / "scenarios" / "fuzz" / "head_home_flaky_home_taken_for_glitch.toml"


@dataclass
class View:
    """A head.jam at side 1, as an evidence rule reads it, made by hand."""

    evidence: Mapping[str, Any]
    glitches: int = 0
    where: str = "side.1.head"
    side: int | None = 1
    tiles_per_side: int = 36
    table_sides: int = 4
    min_travel: float = MIN_TRAVEL
    count_lit: bool = False
    sides: tuple[SideView, ...] = field(default=())

    def __post_init__(self) -> None:
        self.sides = tuple(SideView(n, False, 0, self.glitches if n == 1 else 0, 0)
                           for n in range(4))

    def face_up_sensor_suspected(self) -> bool:
        return False

    def at_side(self) -> SideView | None:
        return self.sides[1]


def _first(evidence: dict[str, Any], glitches: int) -> str:
    suspects, _test, _self_test = jam(View(evidence, glitches))   # type: ignore[arg-type]
    return suspects[0][0]


HOME_SEEN = {"moved": True, "learned_s": 0.45, "waited_s": 1.07, "stop_seen_s": 0.452}


def test_a_home_seen_after_a_whole_turn_and_still_lit_is_the_flickering_sensor() -> None:
    assert _first(HOME_SEEN, glitches=2) == "side.{side}.head_home"


@pytest.mark.parametrize(("evidence", "glitches"), [
    (HOME_SEEN, 0),                                     # no impossible edge of its own
    ({**HOME_SEEN, "stop_seen_s": 0.2}, 2),             # lit sooner than a turn allows
    ({k: v for k, v in HOME_SEEN.items() if k != "stop_seen_s"}, 2),   # never home
])
def test_without_that_evidence_a_cam_that_left_is_a_jam_first(evidence, glitches) -> None:
    assert _first(evidence, glitches) == "side.{side}.head"


def test_a_cam_that_never_left_home_is_still_its_motor_first() -> None:
    assert _first({**HOME_SEEN, "moved": False}, glitches=2) == "motor.side.{side}.head"


def test_the_fuzz_case_names_the_flickering_sensor_first() -> None:
    scenario = load_scenario(FUZZ_CASE)
    report = Harness(load_config(scenario.config), scenario, rig="sim").run(wall_limit_s=60)
    (fault,) = [f for f in report["faults"] if f["id"] == "head.jam"]
    evidence = fault["evidence"]
    assert evidence["stop_seen_s"] >= MIN_TRAVEL * evidence["learned_s"]
    first = fault["diagnosis"]["suspects"][0]
    assert first["part"] == "side.0.head_home" and "flickers" in first["cause"]
    assert fault["diagnosis"]["self_test"] == "head.0"
    assert judge(report)["verdict"] == "first"      # type: ignore[index]
    assert classify(scenario, report) == []


def test_a_tile_jammed_in_the_head_is_still_the_jam_first() -> None:
    scenario = load_scenario(ROOT / "tests" / "scenarios" / "head_jam_play.toml")
    report = Harness(load_config(scenario.config), scenario, rig="sim").run(wall_limit_s=60)
    jams = [f for f in report["faults"] if f["id"] == "head.jam"]
    assert jams
    for fault in jams:
        assert "stop_seen_s" not in fault["evidence"]
        assert fault["diagnosis"]["suspects"][0]["part"] == "side.0.head"
