"""On the I/O board rig, a lower lid sensor that glitches while the walls rise: the
raise finishes without a software error, and the plate the board's interlock stopped
names the lower lid sensor first, not the plate (the judge of `mjtable fuzz`). One that
flickers under a build is the lid's fault, as on the sim rig, not a starved feed's."""

from __future__ import annotations

from pathlib import Path

from mjtable_core.config import load_config
from simulator.fuzz.batch import classify
from simulator.harness.runner import Harness
from simulator.scenario import load_scenario

ROOT = Path(__file__).resolve().parent


def test_a_flaky_lower_lid_sensor_in_the_raise_is_named_and_crashes_nothing() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "review" /
                             "ioboard_lid_lower_flaky_raise.toml")
    report = Harness(load_config(ROOT.parent / "config" / "table.toml"), scenario,
                     rig="ioboard").run(wall_limit_s=60.0)
    assert report["crashed"] is None
    assert "software.error" not in {f["id"] for f in report["faults"]}
    assert classify(scenario, report) == [], report["problems"]


def test_a_lower_lid_sensor_flickering_under_a_build_is_the_lid_fault_as_on_the_sim_rig(
        ) -> None:
    # The board's interlock stops the feed on each flicker and reports the trips before
    # the flicker: the lid must still know the feed ran when its stop dropped.
    scenario = load_scenario(ROOT / "scenarios" / "review" /
                             "ioboard_lid_lower_flaky_build.toml")
    config = load_config(ROOT.parent / "config" / "table.toml")
    board = Harness(config, scenario, rig="ioboard").run(wall_limit_s=60.0)
    sim = Harness(config, scenario, rig="sim").run(wall_limit_s=60.0)
    firsts = [report["faults"][0] for report in (board, sim)]
    assert [f["id"] for f in firsts] == ["lid.not_lowering"] * 2, firsts
    assert firsts[0]["evidence"]["dropped_while"] == firsts[1]["evidence"]["dropped_while"]
    assert firsts[0]["diagnosis"]["suspects"][0]["part"] == "lid.lower"
    assert classify(scenario, board) == [], board["problems"]
