"""One cause, one fault: raised again while active it counts, and the display never
shows a fault once it is cleared."""

from __future__ import annotations

from bench.faults.bench_diagnosis import run_one
from firmware.faults.kinds import Fault
from simulator.scenario import FaultSpec
from tests.test_diagnosis import table_in_play


def test_a_fault_raised_again_while_active_is_one_fault_with_a_count_and_a_rate() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    for _n in range(26):      # a flaky upper lid sensor, every 0.3 s
        ctl.fault("lid.sensor_conflict", "lid", None, {"changed_last": "lid.upper"})
        harness.clock.run_until(harness.clock.now() + 0.3)
    active = [f for f in ctl.faults if f.active and f.id == "lid.sensor_conflict"]
    assert len(active) == 1
    assert active[0].evidence["repeats"] == 26
    assert active[0].evidence["per_minute"] == 200.0
    assert ctl.hal.read("display") == "E12"


def test_the_display_never_shows_a_cleared_fault() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    older = ctl.fault("build.tiles_missing", "build", None, {})
    newer = ctl.fault("plate.stuck", "side.2.plate", 2, {})
    assert ctl.hal.read("display") == "E32"
    ctl.clear_fault(newer, by="test")
    assert ctl.hal.read("display") == "E50"     # the one still active
    ctl.clear_fault(older, by="test")
    assert ctl.hal.read("display") not in ("E50", "E32")


def test_a_flaky_lid_sensor_raises_no_flood() -> None:
    judged = run_one("table.toml", FaultSpec("sensor_flaky", "lid.upper", 1, "build",
                                             probability=6.0))
    assert judged["max_active_copies"] <= 1, judged
    assert not judged["flood"], judged


def test_a_stuck_face_up_sensor_is_known_across_builds_and_gives_no_tile_verdict() -> None:
    from mjtable_core.config import load_config
    from simulator.harness.runner import Harness
    from simulator.scenario import Scenario
    from tests.conftest import quick

    harness = Harness(quick(load_config(), 20.0), Scenario(seed=3, cycles=1, faults=(
        FaultSpec("sensor_stuck", "side.1.face_up", 1, "build", value=True),)))
    harness.run()
    ctl = harness.ctl
    w60 = [f for f in ctl.faults if f.id == "tile.face_up"]
    assert len([f for f in w60 if f.active]) == 1          # one fault, with a count
    assert w60[-1].evidence["repeats"] > 4
    # A later build's first face-up at that side: the sensor, never "replace that tile".
    later = Fault("tile.face_up", "side.1.head", 1, ctl.cycle.number + 5, 0.0,
                  {"set": "A", "wall_slot": [1, 0, 0], "tile_index": 0})
    later.diagnosis_extra = ctl.fault_path.diagnose(later)
    shown = later.diagnosis()
    assert [s["part"] for s in shown["suspects"]] == ["side.1.face_up"]
    assert shown.get("sensor_suspect") == "side.1.face_up"
    assert not shown.get("recurring")


def test_a_cause_raises_at_most_three_faults_an_hour_then_its_last_comes_back() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    cause = ("plate.stuck", "side.2.plate", 2)
    for _n in range(6):        # raised, cleared, raised again: a wrong repair each time
        fault = ctl.fault(*cause, {"moved": True})
        assert ctl.hal.read("display") == "E32"
        assert sum(f.active and (f.id, f.where, f.side) == cause for f in ctl.faults) == 1
        ctl.clear_fault(fault, by="test")
        harness.clock.run_until(harness.clock.now() + 60.0)
    raised = [f for f in ctl.faults if (f.id, f.where, f.side) == cause]
    assert len(raised) == 3
    assert raised[-1].repeats == 4 and raised[-1].evidence["per_minute"] == 1.0
    assert len([f for f in harness.faults if f["id"] == "plate.stuck"]) == 3
    back = ctl.fault(*cause, {"moved": True})          # still stops safe past the cap
    assert back is raised[-1] and back.active and "table" in ctl.shutdown.scopes
    ctl.clear_fault(back, by="test")
    harness.clock.run_until(harness.clock.now() + 3600.0)
    assert ctl.fault(*cause, {"moved": True}) is not raised[-1]    # an hour on: raised


def test_a_flickering_head_home_sensor_is_told_once_naming_the_sensor_and_side() -> None:
    # Filtered, the table rides through the glitches; the technician is still told:
    # one warning for the sensor, its glitches counted on it, never a flood.
    from firmware.i18n import language

    harness = table_in_play()
    ctl = harness.ctl
    side = ctl.sides[2]
    for _n in range(8):
        side.glitches += 1
        ctl.fault("sensor.flaky", "side.2.head_home", 2,
                  {"sensor": "side.2.head_home", "glitches": side.glitches})
        harness.clock.run_until(harness.clock.now() + 1.0)
    raised = [f for f in ctl.faults if f.id == "sensor.flaky"]
    assert len(raised) == 1 and raised[0].active
    assert raised[0].evidence["repeats"] == 8
    shown = raised[0].diagnosis()
    assert shown["suspects"][0]["part"] == "side.2.head_home"
    assert shown["causes"][0] == "the head home sensor of side 2 flickers"
    with language("zh_CN"):
        assert raised[0].diagnosis()["causes"][0] == "2 号口机头槽形光耦时好时坏"


def test_a_flickering_head_home_sensor_raises_its_warning_in_a_build() -> None:
    judged = run_one("table.toml", FaultSpec("sensor_flaky", "side.1.head_home", 1, "build",
                                             probability=2.0), cycles=1)
    assert judged["first_fault"] == "W95" and judged["verdict"] == "first", judged
    assert judged["by_id"]["sensor.flaky"] == 1 and not judged["flood"], judged
    assert judged["max_active_copies"] <= 1, judged
