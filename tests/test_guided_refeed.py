"""The refeed hold answered by the players themselves (no technician).

Where nothing proves the count of a half-built set (here a power cut mid-build), the
table shows rF; the players push the set back and hold both lift keys for 2 s. A single
key, or a brush of both, never clears it; the set is built again from zero.
"""

from __future__ import annotations

from pathlib import Path

from firmware.faults.guided_refeed import CONFIRM_HOLD_S
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import load_scenario
from tests.conftest import ROOT, events_of
from tests.test_journal import power_cut_mid_build

SCENARIO = ROOT / "tests" / "scenarios" / "power_cut_build_players_refeed.toml"


def _held() -> tuple:
    bench, again = power_cut_mid_build()
    bench.clock.run_until(bench.clock.now() + 5.0)
    assert again.refeed_hold is not None and bench.hal.read("display") == "rF"
    assert again.cycle.state == "play" and again.build.state == "idle"
    return bench, again


def _press_both(bench, hold_s: float) -> None:
    bench.table.press("key.lift.0", hold_s=hold_s)
    bench.table.press("key.lift.1", hold_s=hold_s)
    bench.clock.run_until(bench.clock.now() + hold_s + 1.0)


def test_one_lift_key_or_a_brush_of_both_never_clears_the_hold() -> None:
    bench, again = _held()
    bench.table.press("key.lift.0", hold_s=CONFIRM_HOLD_S + 1.0)    # one key, held long
    bench.clock.run_until(bench.clock.now() + CONFIRM_HOLD_S + 2.0)
    assert again.refeed_hold is not None and again.build.state == "idle"
    _press_both(bench, CONFIRM_HOLD_S / 2)                          # both, let go early
    assert again.refeed_hold is not None and again.build.state == "idle"
    assert bench.hal.read("display") == "rF" and not bench.hal.read("lamp.ready")


def test_both_lift_keys_held_confirm_the_refeed_and_the_set_is_built_from_zero() -> None:
    bench, again = _held()
    events = events_of(again)
    bench.table.refeed()                    # the players push the half-built set back
    bench.table.press("key.lift.0", hold_s=CONFIRM_HOLD_S + 1.0)
    bench.table.press("key.lift.1", hold_s=CONFIRM_HOLD_S + 1.0)
    bench.clock.run_until(bench.clock.now() + CONFIRM_HOLD_S / 2)
    assert bench.hal.read("lamp.ready")     # step 2: keep holding
    bench.clock.run_until(bench.clock.now() + CONFIRM_HOLD_S)
    assert again.refeed_hold is None
    assert bench.hal.read("display") != "rF" and bench.hal.read("lamp.building")
    assert [e["by"] for e in events if e["kind"] == "refeed.confirmed"] == [
        "players (refeed)"]
    bench.clock.run_until(bench.clock.now() + 90.0,
                          until=lambda: again.build.state == "staged")
    assert again.build.state == "staged"
    assert [s.stacked for s in again.sides] == [again.config.tiles_per_side] * 4
    assert bench.table.tiles_accounted()


def test_the_keys_do_not_answer_the_hold_while_the_lid_is_off_its_stop() -> None:
    bench, again = _held()
    events = events_of(again)
    bench.table.block_lid(True)
    bench.table.values["lid.lower"] = False     # the lid's stop dark (as if part open)
    again.lid.machine.set_state("unknown", model=again.lid)
    _press_both(bench, CONFIRM_HOLD_S + 1.0)
    assert again.refeed_hold is not None and again.build.state == "idle"
    assert any(e["kind"] == "key.ignored" and "lid" in e.get("why", "") for e in events)


def test_a_power_cut_mid_build_with_no_technician_deals_every_hand(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIO)
    assert scenario.actions == ()           # nobody but the players
    harness = Harness(load_config(), scenario)
    report = harness.run(wall_limit_s=120.0)
    assert report["problems"] == [] and report["referee_violations"] == []
    assert report["cycles_completed"] == 3 and report["tiles_accounted"]
    assert harness.players.refeeds == 1
    assert harness.ctl.refeed_hold is None


def test_a_hold_that_stands_for_extra_tiles_waits_for_a_technician() -> None:
    # Cut while E51 (extra tiles) held the build: the hold takes its place, but the
    # foreign tiles are still inside. A players' refeed would build them in again.
    bench, again = _held()
    hold = again.refeed_hold
    hold.evidence["took_the_place_of"] = ["build.extra_tiles"]
    events = events_of(again)
    bench.table.refeed()
    _press_both(bench, CONFIRM_HOLD_S + 1.0)
    assert again.refeed_hold is hold and again.build.state == "idle"
    assert any(e["kind"] == "key.ignored" and "technician" in e.get("why", "")
               for e in events)
