"""Adversarial checks of the safety core (issue 11), written by a second pair of eyes.

Each test is an attack on a claim of docs/faults.md: the one shutdown path, the owner
of each mechanism, the interlocks of jog and test mode, the clear interlocks. A known
failure is a strict xfail naming issue 11, so it turns into a pass (and a failing
xfail) the day it is fixed.
"""

from __future__ import annotations

import pytest

from firmware.controller import Controller
from firmware.machines.maintenance import Maintenance, MaintenanceRefused
from mjtable_core.clock import VirtualClock
from tests.conftest import ScriptedHal, events_of, run_for
from tests.steps import fill_all, homed, lift_to_raising, open_hole, press_lift
from tests.test_journal import power_cut_mid_build

Rig = tuple[Controller, ScriptedHal, VirtualClock]




def jog_refused(service: Maintenance, motor: str, direction: str = "fwd") -> str | None:
    try:
        service.jog(motor, direction, 1.0, by="tech")
    except MaintenanceRefused as exc:
        return str(exc)
    return None


# -- jog interlocks: the hole is open, hands may be in it ---------------------------------

def test_jog_of_the_lid_is_refused_while_the_hole_is_open(rig: Rig) -> None:
    # The claim the other two attacks measure themselves against.
    ctl, _hal, _clock = rig
    open_hole(rig)
    why = jog_refused(ctl.maintenance(), "lid", "down")
    assert why is not None and "hands may be in the hole" in why


# The conveyors are among the motors docs/faults.md's referee forbids with the lid away
# from its lower stop (motor.lid_open), like the disc and the plates.
@pytest.mark.parametrize(("mechanism", "motor"), [
    ("disc", "motor.disc"), ("plate.2", "motor.side.2.plate"), ("conveyor.1", None)])
def test_jog_under_the_lid_is_refused_while_the_hole_is_open(
        rig: Rig, mechanism: str, motor: str | None) -> None:
    ctl, hal, _clock = rig
    open_hole(rig)
    why = jog_refused(ctl.maintenance(), mechanism)
    assert why is not None, f"{mechanism} ran with the hole open"
    if motor is not None:
        assert hal.values[motor] is False


def test_a_latched_fault_does_not_refuse_the_jog_that_frees_the_jam(rig: Rig) -> None:
    # The interlocks must not lock the technician out: with the lid down, a head jam
    # latched and its side stopped, the head and that side's belt may be jogged.
    ctl, hal, clock = rig
    homed(rig)
    run_for(clock, 1.0)
    ctl.fault("head.jam", "side.2.head", 2, {})
    assert hal.values["motor.side.2.head"] is False and hal.values["motor.disc"] is False
    service = ctl.maintenance()
    service.jog("head.2", "fwd", 0.5, by="tech")
    assert hal.values["motor.side.2.head"] is True
    run_for(clock, 0.6)
    assert hal.values["motor.side.2.head"] is False
    service.jog("conveyor.2", "fwd", 0.5, by="tech")
    assert hal.values["motor.side.2.conveyor"] is True


# -- e-stop and test mode ------------------------------------------------------------------

def test_estop_during_a_self_test_stops_it_and_latches(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    service = ctl.maintenance()
    service.enter(by="tech")
    service.test("disc", by="tech")
    run_for(clock, 0.2)
    assert hal.values["motor.disc"] is True
    ctl.estop(by="tech")
    assert hal.motors_off()
    run_for(clock, 20.0)                             # no step or timer of the test restarts
    assert hal.motors_off()
    assert service.running is None
    with pytest.raises(MaintenanceRefused):
        service.test("disc", by="tech")
    with pytest.raises(MaintenanceRefused):
        service.jog("disc", "fwd", 1.0, by="tech")


def test_estop_during_test_all_does_not_run_the_queued_tests(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    service = ctl.maintenance()
    service.enter(by="tech")
    service.test("all", by="tech")
    run_for(clock, 0.2)
    ctl.estop(by="tech")
    ctl.release_estop(by="tech")                     # released while still in test mode
    run_for(clock, 60.0)
    starts = [w for w in hal.writes if w[0] > clock.now() - 60.0
              and w[1].startswith("motor.") and w[2] not in (False, "off")]
    assert starts == [], "a queued self-test started after the e-stop"


def test_estop_during_a_jog_stops_the_motor(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    service = ctl.maintenance()
    service.enter(by="tech")
    service.jog("conveyor.3", "fwd", 5.0, by="tech")
    assert hal.values["motor.side.3.conveyor"] is True
    ctl.estop(by="tech")
    assert hal.motors_off()
    run_for(clock, 6.0)
    assert hal.motors_off() and ctl.owner.held == {}


# -- the latch ---------------------------------------------------------------------------

def test_a_build_fault_latch_does_not_stop_the_lid_closing(rig: Rig) -> None:
    # The build's scope never includes the lid: a head jam while the lid closes after a
    # top-up must not leave the lid half way (it is not a build motor).
    ctl, hal, _clock = rig
    homed(rig)
    ctl.fault("head.jam", "side.0.head", 0, {})
    ctl.hal.write("motor.lid", "down")
    assert hal.values["motor.lid"] == "down"
    ctl.hal.write("motor.disc", True)
    assert hal.values["motor.disc"] is False


def test_two_faults_in_two_scopes_need_both_cleared(rig: Rig) -> None:
    ctl, hal, _clock = rig
    homed(rig)
    events = events_of(ctl)
    jam = ctl.fault("head.jam", "side.0.head", 0, {})
    lid = ctl.fault("lid.not_rising", "lid", None, {})
    service = ctl.maintenance()
    ctl.clear_fault(jam, by="tech")
    assert service.resume_if_clear() is False        # the lid fault still holds the table
    assert hal.motors_off()
    ctl.hal.write("motor.disc", True)
    assert hal.values["motor.disc"] is False
    ctl.clear_fault(lid, by="tech")
    assert service.resume_if_clear() is True
    assert not [e for e in events if e["kind"] == "software.error"]


def test_a_halt_during_a_halt_is_idempotent(rig: Rig) -> None:
    ctl, _hal, clock = rig
    homed(rig)
    ctl.halt("one")
    parked = dict(ctl.halt_parked)
    ctl.halt("two")
    ctl.estop(by="tech")
    assert ctl.halt_parked == parked                 # the first snapshot is the one kept
    ctl.release_estop(by="tech")
    events = events_of(ctl)
    ctl.resume_after_fault()
    assert not [e for e in events if e["kind"] == "software.error"]
    run_for(clock, 0.01)
    assert ctl.cycle.state != "fault"


# -- the journal written while a table fault holds the machines --------------------------


def test_a_table_fault_while_staged_keeps_the_staged_set_in_the_journal(rig: Rig) -> None:
    ctl, _hal, _clock = rig
    homed(rig)
    fill_all(rig)
    assert ctl.build.state == "staged"
    ctl.fault("lid.not_lowering", "motor.lid", None, {})
    saved = ctl.journal.load()
    assert saved["staged_walls"] is not None and saved["build"] == "staged"


def test_a_fault_during_the_raise_keeps_the_raise_in_the_journal(rig: Rig) -> None:
    ctl, _hal, _clock = rig
    homed(rig)
    fill_all(rig)
    lift_to_raising(rig)
    ctl.fault("plate.stuck", "side.3.plate", 3, {})
    assert ctl.journal.load()["raising"] is True


def test_the_display_leaves_rf_once_the_set_is_refed() -> None:
    # The operator refeeds after a cut mid-build: the display must stop asking for it.
    bench, again = power_cut_mid_build()
    bench.clock.run_until(bench.clock.now() + 5.0)
    assert bench.hal.read("display") == "rF"
    bench.table.refeed()
    again.clear_fault(again.refeed_hold, by="operator", refed=True)
    bench.clock.run_until(bench.clock.now() + 120.0,   # the set is built again, staged
                          until=lambda: again.build.state == "staged")
    assert again.build.state == "staged"
    assert bench.hal.read("display") != "rF"


# -- moving the lid while the build drives the disc ----------------------------------------

def lid_opened_while_building(rig: Rig, move) -> bool:
    """Whether the lid was driven up while the disc ran (referee rule motor.lid_open)."""
    ctl, hal, clock = rig
    homed(rig)
    run_for(clock, 2.0)
    assert ctl.build.state == "building" and hal.values["motor.disc"] is True
    try:
        move(ctl)
    except MaintenanceRefused:
        return False
    run_for(clock, 0.2)
    return hal.values["motor.lid"] == "up" and hal.values["motor.disc"] is True


def test_a_diagnosis_lid_check_never_opens_the_lid_over_a_running_build(rig: Rig) -> None:
    from firmware.diagnosis.guided import diagnose
    assert not lid_opened_while_building(
        rig, lambda ctl: diagnose(ctl, "lid_not_lowering", lambda _r: None))


def test_jog_lid_up_is_refused_over_a_running_build(rig: Rig) -> None:
    assert not lid_opened_while_building(
        rig, lambda ctl: ctl.maintenance().jog("lid", "up", 2.0, by="tech"))


# -- bounded history -------------------------------------------------------------------

def test_warnings_nobody_clears_do_not_grow_the_history(rig: Rig) -> None:
    from firmware.faults.path import FAULT_HISTORY
    ctl, _hal, _clock = rig
    homed(rig)
    for _ in range(1000):                            # one face-up tile a build, never fixed
        ctl.fault("tile.face_up", "side.1.head", 1, {"tile_index": 3})
    assert len(ctl.faults) <= 2 * FAULT_HISTORY
    assert len(ctl.journal.load()["faults"]) <= 2 * FAULT_HISTORY
    assert ctl.fault_counts["tile.face_up"] == 1000


# -- degraded only on evidence -----------------------------------------------------------

def test_a_slow_travel_back_is_no_evidence_of_a_dead_stop_sensor(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    press_lift(rig)
    hal.edge("lid.lower", False)                     # it moves, but slowly
    run_for(clock, 3.5)                              # k·T: upper never seen
    fault = ctl.faults[-1]
    assert fault.id == "lid.not_rising"
    ctl.clear_fault(fault, by="tech")
    ctl.resume_after_fault()
    assert hal.values["motor.lid"] == "down"
    run_for(clock, 2.5)                              # 1.7 x the learned 1.5 s, < k·T
    hal.edge("lid.lower", True)
    run_for(clock, 0.01)
    assert "sensor.degraded" not in [f.id for f in ctl.faults]


def test_the_journal_after_a_resume_holds_the_staged_set_again(rig: Rig) -> None:
    ctl, _hal, _clock = rig
    homed(rig)
    fill_all(rig)
    assert ctl.build.state == "staged"
    fault = ctl.fault("lid.not_rising", "motor.lid", None, {})
    ctl.clear_fault(fault, by="tech")
    ctl.resume_after_fault()
    assert ctl.build.state == "staged"
    saved = ctl.journal.load()
    assert saved["build"] == "staged" and saved["staged_walls"] is not None
