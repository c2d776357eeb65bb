"""Guided diagnosis on the simulated table: verdicts with evidence, and checks that
move the machine."""

from __future__ import annotations

import pytest

from firmware.diagnosis.guided import SYMPTOMS, UnknownSymptom, diagnose
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import Scenario, load_scenario
from tests.conftest import ROOT, quick


def table_in_play(seed: int = 4) -> Harness:
    """A simulated table in the middle of a hand with the next set staged."""
    harness = Harness(quick(load_config(), 600.0), Scenario(seed=seed, cycles=1))
    harness.boot()
    harness.players.start()
    harness.clock.run_until(2000.0, until=lambda: harness.ctl.build.state == "staged"
                            and harness.ctl.cycle.number == 1
                            and harness.ctl.cycle.state == "play")
    return harness


def run_check(harness: Harness, symptom: str) -> dict:
    results: list[dict] = []
    immediate = diagnose(harness.ctl, symptom, results.append)
    if immediate is not None:
        return immediate
    harness.clock.run_until(harness.clock.now() + 30.0, until=lambda: bool(results))
    return results[0]


def test_set_on_the_table_is_normal_on_a_two_set_table() -> None:
    harness = table_in_play()
    result = run_check(harness, "set_stays_on_table")
    assert result["normal"] is True
    assert "two-set table always has one set on the table" in result["verdict"]
    check = result["checks"][0]
    assert check["check"] == "lid_check" and check["run"] and check["ok"]
    names = [name for _, name, _ in check["edges"]]
    assert names.index("lid.lower") < names.index("lid.upper")    # left the lower stop first
    assert harness.ctl.lid.state == "closed"
    assert harness.table.motors_off()


def test_set_on_the_table_says_which_when_the_lid_does_not_lower() -> None:
    harness = table_in_play()
    harness.table.block_lid(True)
    result = run_check(harness, "set_stays_on_table")
    assert result["normal"] is False
    assert "lower stop" in result["verdict"]
    assert result["checks"][0]["faults"][0]["id"] == "lid.not_lowering"
    assert harness.table.motors_off()


def test_lid_check_with_a_dead_lower_sensor() -> None:
    harness = table_in_play()
    harness.table.stick("lid.lower", False)
    # The stop the lid rests on dropped back: the table drives it down again at once
    # and, not seeing the stop, raises the fault itself — before anyone asks.
    harness.clock.run_until(harness.clock.now() + 5.0)
    assert [f.id for f in harness.ctl.faults if f.active] == ["lid.not_lowering"]
    result = run_check(harness, "lid_not_lowering")
    assert result["normal"] is False
    assert result["verdict"] == "the lid did not reach its lower stop"
    assert result["checks"][0]["run"] is False      # nothing moves while E11 is active


def test_dice_check() -> None:
    harness = table_in_play()
    assert run_check(harness, "dice_not_spinning")["normal"] is True
    harness.table.jam_dice(True)
    result = run_check(harness, "dice_not_spinning")
    assert result["normal"] is False and "do not tumble" in result["verdict"]
    assert not harness.table.motor_on("motor.dice")


def test_checks_wait_while_the_table_is_busy() -> None:
    harness = Harness(quick(load_config()), Scenario(seed=2, cycles=1))
    harness.boot()
    harness.clock.run_until(5.0)                    # the first build is running
    result = run_check(harness, "lid_not_lowering")
    assert result["checks"][0]["run"] is False
    assert "being built" in result["checks"][0]["why"]
    assert harness.ctl.lid.state == "closed"


def test_face_up_tile_diagnosed_as_one_defective_tile() -> None:
    scenario = load_scenario(ROOT / "tests" / "scenarios" / "weak_magnet_A.toml")
    harness = Harness(quick(load_config(), 60.0), scenario)
    harness.run()
    result = diagnose(harness.ctl, "tile_face_up")
    assert result["normal"] is False
    assert "one defective tile" in result["verdict"]
    assert result["remedy"][0].startswith("replace the face-up tile, now at wall")


def test_build_never_finishes_names_the_short_side() -> None:
    scenario = load_scenario(ROOT / "tests" / "scenarios" / "dead_magnet.toml")
    harness = Harness(quick(load_config(), 60.0), scenario)
    harness.boot()
    harness.players.start()
    harness.clock.run_until(200.0, until=lambda: any(
        f.id == "build.tiles_missing" for f in harness.ctl.faults))
    result = diagnose(harness.ctl, "build_never_finishes")
    assert result["normal"] is False
    assert result["evidence"]["short_sides"] == {
        int(k): v for k, v in harness.ctl.faults[-1].evidence["short_sides"].items()}


def test_walls_not_rising_before_a_set_is_staged() -> None:
    harness = Harness(quick(load_config()), Scenario(seed=2, cycles=1))
    harness.boot()
    harness.clock.run_until(5.0)
    result = diagnose(harness.ctl, "walls_not_rising")
    assert result["normal"] is True and "only when a set is staged" in result["verdict"]


def test_wrong_tile_count_reports_count_faults() -> None:
    scenario = load_scenario(ROOT / "tests" / "scenarios" / "count_double.toml")
    harness = Harness(quick(load_config(), 60.0), scenario)
    harness.run()
    result = diagnose(harness.ctl, "wrong_tile_count")
    assert result["normal"] is False
    assert result["verdict"].startswith("two tile arrivals closer than physically possible")


def test_every_symptom_answers_and_unknown_is_refused() -> None:
    harness = table_in_play()
    for symptom in SYMPTOMS:
        result = diagnose(harness.ctl, symptom)
        assert result is not None and {"verdict", "evidence", "normal"} <= set(result)
    with pytest.raises(UnknownSymptom, match="no symptom matches “table_on_fire”") as refused:
        diagnose(harness.ctl, "table_on_fire")
    # The refusal lists every symptom, so the technician can pick one.
    assert all(symptom in str(refused.value) for symptom in SYMPTOMS)


def test_console_prints_the_verdict_checks_and_remedy() -> None:
    from firmware.console.render import diagnosis_lines

    harness = table_in_play()
    harness.table.block_lid(True)
    lines = diagnosis_lines(run_check(harness, "lid_not_lowering"))
    assert lines[0] == "the centre lid does not lower: NOT NORMAL"
    assert any(line.startswith("  check lid up-and-down check FAILED") for line in lines)
    assert any("lid.lower -> off" in line for line in lines)
    assert lines[-1].startswith("  - ")
