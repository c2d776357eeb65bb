"""The safety core, one regression per finding of the safety review (issue 11).

Each test names its finding; each fails on the code before the fix (checked by
reverting the fix locally).
"""

from __future__ import annotations

import pytest

from firmware.controller import Controller, compose_table
from firmware.diagnosis.guided import diagnose
from firmware.faults.clearing import ClearRefused
from firmware.faults.path import FAULT_HISTORY
from firmware.machines.maintenance import MaintenanceRefused
from firmware.state.journal import MemoryJournal
from mjtable_core.clock import VirtualClock
from simulator.harness.runner import ScopedClock
from tests.conftest import ScriptedHal, events_of, run_for
from tests.steps import (
    feed_tile,
    fill_all,
    homed,
    lid_down,
    lift_to_raising,
    open_hole,
    press_lift,
    raise_and_deal,
    turn_plates,
)
from tests.test_journal import booted, power_cut_mid_build

Rig = tuple[Controller, ScriptedHal, VirtualClock]


def motor_starts_after(hal: ScriptedHal, t: float) -> list[tuple[float, str, object]]:
    return [(at, name, value) for at, name, value in hal.writes
            if at >= t and name.startswith("motor.") and value not in (False, "off")]


# -- finding 1: no motor back on after the safe state ------------------------------------

def test_1_a_fault_during_homing_starts_nothing_afterwards(rig: Rig) -> None:
    ctl, hal, clock = rig
    hal.values["side.1.plate_home"] = False         # homing turns plate 1 round
    ctl.start()
    assert ctl.cycle.state == "homing"
    run_for(clock, 6.0)                              # k·T: plate.stuck, a table fault
    fault = ctl.faults[-1]
    assert fault.id == "plate.stuck" and ctl.cycle.state == "fault"
    run_for(clock, 12.0)
    assert motor_starts_after(hal, fault.sim_time_s) == []
    assert hal.motors_off() and ctl.build.state != "building"


def test_1_test_mode_at_power_on_starts_no_build(rig: Rig) -> None:
    ctl, hal, clock = rig
    hal.values["side.0.head_home"] = False           # homing not done at once
    hal.values["key.lift.0"] = hal.values["key.lift.1"] = True
    service = ctl.maintenance()
    service.power_on()
    assert service.test_mode and hal.motors_off()
    run_for(clock, 12.0)
    assert ctl.build.state != "building" and hal.motors_off()
    builds = [name for _, name, value in hal.writes if value is True and (
        name in ("motor.disc", "motor.ring") or name.endswith(".conveyor"))]
    assert builds == []                              # no build was started at all


def test_1_the_latch_refuses_a_motor_after_a_halt(rig: Rig) -> None:
    ctl, hal, _clock = rig
    homed(rig)
    ctl.halt("test")
    ctl.hal.write("motor.disc", True)                # as a stray hook or timer would
    assert hal.values["motor.disc"] is False
    assert ("motor.disc", True) in ctl.outputs.refused


# -- finding 2: recovery through the declared transitions ------------------------------

def test_2_clearing_a_fault_raised_during_homing_homes_again(rig: Rig) -> None:
    ctl, hal, clock = rig
    hal.values["side.1.plate_home"] = False
    ctl.start()
    run_for(clock, 6.0)
    fault = ctl.faults[-1]
    assert fault.id == "plate.stuck"
    events = events_of(ctl)
    ctl.clear_fault(fault, by="test")
    ctl.resume_after_fault()
    assert not [e for e in events if e["kind"] == "software.error"]
    assert ctl.cycle.state == "homing" and hal.values["motor.side.1.plate"] is True
    hal.edge("side.1.plate_home", True)
    run_for(clock, 0.1)
    assert ctl.cycle.state == "play" and ctl.build.state == "building"
    phases = [e["state"] for e in events if e["kind"] == "phase"]
    assert phases == ["homing", "play"]             # emitted by the transitions


def test_2_a_head_jam_cleared_during_homing_does_not_leave_it_homing(rig: Rig) -> None:
    ctl, hal, clock = rig
    hal.values["side.2.head_home"] = False
    ctl.start()
    run_for(clock, 2.0)
    fault = ctl.faults[-1]
    assert fault.id == "head.jam" and ctl.cycle.state == "homing"
    ctl.clear_fault(fault, by="test")
    ctl.resume_after_fault()
    assert hal.values["motor.side.2.head"] is True   # brought round again
    run_for(clock, 0.4)
    hal.edge("side.2.head_home", True)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "play" and ctl.build.state == "building"


# -- finding 3: a count edge at a full side while the set is staged --------------------

def test_3_a_count_at_a_full_side_while_staged_never_crashes_the_raise(rig: Rig) -> None:
    # The finding: a count edge at a full side of the staged set raised extra_tiles,
    # parked the build and the raise then crashed on it. With the conveyors off no
    # tile can reach a head: it is the count sensor (a glitch), never an extra tile.
    ctl, hal, _clock = rig
    homed(rig)
    fill_all(rig)
    events = events_of(ctl)
    hal.edge("side.0.count", True)
    hal.edge("side.0.count", False)
    assert [e["sensor"] for e in events if e["kind"] == "sensor.glitch"] == ["side.0.count"]
    assert not ctl.faults and ctl.build.state == "staged"
    lift_to_raising(rig)
    hal.edge("side.1.count", True)                   # and while the walls rise
    hal.edge("side.1.count", False)
    turn_plates(rig)
    assert not [e for e in events if e["kind"] in ("software.error", "fault")]
    assert ctl.cycle.state == "dealing" and ctl.build.state == "building"


def test_3_an_extra_tile_in_the_sweep_is_refed_never_raised(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    for _ in range(ctl.sides[0].target):            # every side full: the sweep runs
        feed_tile(rig)
    assert ctl.build.state == "sweeping" and hal.values["motor.side.0.conveyor"] is True
    hal.edge("side.0.count", True)                   # a tile reaches a full side
    # Told once a tile would still stand at the sensor (whether it does is evidence:
    # a pulse gone sooner is the count sensor flickering).
    run_for(clock, 0.1)
    fault = ctl.faults[-1]
    assert fault.id == "build.extra_tiles" and ctl.build.state == "fault"
    assert ctl.build.untrusted and hal.motors_off()
    ctl.clear_fault(fault, by="technician (extra removed, machine emptied)")
    ctl.resume_after_fault()
    assert ctl.build.state == "building" and ctl.build.set_name == "A"   # built again


def test_3_a_machine_error_goes_through_the_shutdown_path(rig: Rig) -> None:
    ctl, hal, _clock = rig
    homed(rig)
    ctl.build.raised()                               # not valid while building
    fault = ctl.faults[-1]
    assert (fault.id, fault.code, fault.active) == ("software.error", "E99", True)
    assert hal.motors_off() and ctl.cycle.state == "fault"
    assert "table" in ctl.shutdown.scopes


# -- finding 4: plausibility of the lid and plate stop sensors --------------------------

def test_4_a_lid_stop_seen_too_early_is_a_glitch(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    events = events_of(ctl)
    ctl.lid.open()
    hal.edge("lid.lower", False)
    run_for(clock, 0.19)
    hal.edge("lid.upper", True)                      # 0.19 s into a 1.5 s travel
    assert ctl.lid.state == "opening" and hal.values["motor.lid"] == "up"
    assert [e["sensor"] for e in events if e["kind"] == "sensor.glitch"] == ["lid.upper"]
    hal.edge("lid.upper", False)
    run_for(clock, 1.1)
    hal.edge("lid.upper", True)
    assert ctl.lid.state == "open" and hal.values["motor.lid"] == "off"


def test_4_a_plate_home_glitch_mid_turn_is_not_home(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    lift_to_raising(rig)
    hal.edge("side.0.plate_home", False)
    run_for(clock, 0.3)
    hal.edge("side.0.plate_home", True)              # a glitch 0.3 s into a 2.5 s turn
    assert ctl.plates[0].state == "returning"
    assert hal.values["motor.side.0.plate"] is True


def test_4_a_brief_plate_home_late_in_the_turn_is_not_home(rig: Rig) -> None:
    # Found by the fuzzer: a flaky plate_home late in a turn stopped the plate 75 %
    # of the way round, its wall part raised, and the walls were committed.
    ctl, hal, clock = rig
    homed(rig)
    ctl.plates[2].turn()
    hal.edge("side.2.plate_home", False)
    run_for(clock, 1.9)                              # past the minimum travel
    hal.edge("side.2.plate_home", True)
    run_for(clock, 0.02)
    hal.edge("side.2.plate_home", False)             # a 20 ms glitch
    run_for(clock, 0.1)
    assert ctl.plates[2].state == "returning"
    assert hal.values["motor.side.2.plate"] is True
    hal.edge("side.2.plate_home", True)              # really home: it stays
    run_for(clock, 0.1)
    assert ctl.plates[2].state == "home" and hal.values["motor.side.2.plate"] is False


def test_4_a_stop_sensor_dropping_back_is_driven_to_again(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)                                    # the set staged: the feed is still
    assert not hal.values["motor.disc"]
    hal.edge("lid.lower", False)                     # the lid rests closed: it slipped?
    assert ctl.lid.state == "closing" and hal.values["motor.lid"] == "down"
    run_for(clock, 4.0)                              # never seen again: a fault
    assert ctl.faults[-1].id == "lid.not_lowering"
    assert hal.motors_off()


def test_4_the_lower_stop_dropping_back_under_a_running_feed_stops_it(rig: Rig) -> None:
    # The lower stop guards the feed and the walls: what it guards does not run on while
    # the lid is driven down again (the stop believed may have been a pulse while the
    # lid stood blocked part open: tests/scenarios/review/lid_lower_pulse_while_blocked).
    ctl, hal, _clock = rig
    homed(rig)                                       # the first set builds
    hal.edge("lid.lower", False)
    fault = ctl.faults[-1]
    assert fault.id == "lid.not_lowering" and "motor.disc" in fault.evidence["dropped_while"]
    assert hal.motors_off()


# -- finding 5: degraded only on evidence; restored when cleared -------------------------

def start_opening(rig: Rig) -> None:
    """A staged set and a lift key: the lid has just left its lower stop."""
    ctl, hal, _clock = rig
    homed(rig)
    fill_all(rig)
    press_lift(rig)
    assert ctl.cycle.state == "opening"
    hal.edge("lid.lower", False)


def test_5_an_obstruction_stays_an_obstruction(rig: Rig) -> None:
    ctl, hal, clock = rig
    start_opening(rig)
    run_for(clock, 3.5)                              # stopped 40 % open: upper unseen
    fault = ctl.faults[-1]
    assert fault.id == "lid.not_rising" and fault.evidence["suspect_sensor"] == "lid.upper"
    ctl.clear_fault(fault, by="test")                # cleared without removing it
    ctl.resume_after_fault()
    assert hal.values["motor.lid"] == "down"         # travel back to the lower stop first
    run_for(clock, 0.6)                              # 40 % of the learned 1.5 s
    hal.edge("lid.lower", True)
    run_for(clock, 0.07)                             # a part-length move's stop stays
    assert hal.values["motor.lid"] == "up"
    hal.edge("lid.lower", False)
    run_for(clock, 3.5)
    ids = [f.id for f in ctl.faults]
    assert "sensor.degraded" not in ids and ids[-1] == "lid.not_rising"
    assert ctl.supervisor.degraded == set() and hal.motors_off()


def test_5_a_failed_sensor_is_degraded_on_evidence_and_restored_when_cleared(
        rig: Rig) -> None:
    ctl, hal, clock = rig
    start_opening(rig)
    run_for(clock, 3.5)                              # at the top; lid.upper is dead
    ctl.clear_fault(ctl.faults[-1], by="test")
    ctl.resume_after_fault()
    assert hal.values["motor.lid"] == "down"
    run_for(clock, 1.45)                             # the whole travel back
    hal.edge("lid.lower", True)
    run_for(clock, 0.07)                             # a part-length move's stop stays
    degraded = ctl.faults[-1]
    assert (degraded.id, degraded.where) == ("sensor.degraded", "lid.upper")
    assert ctl.supervisor.degraded == {"lid.upper"}
    hal.edge("lid.lower", False)
    run_for(clock, 1.8)                              # a timed stop at T·1.1
    assert ctl.lid.state == "open" and ctl.cycle.state == "hole_open"
    ctl.clear_fault(degraded, by="technician (sensor replaced)")
    assert ctl.supervisor.degraded == set()


def test_5_a_head_jam_cleared_twice_is_never_a_degraded_sensor(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    for _ in range(3):
        if ctl.faults:
            ctl.clear_fault(ctl.faults[-1], by="test")
            ctl.resume_after_fault()
        else:
            hal.edge("side.3.count", True)
            hal.edge("side.3.head_home", False)
        run_for(clock, 2.0)
        assert ctl.faults[-1].id == "head.jam"
    assert ctl.supervisor.degraded == set()


# -- finding 6: recovery state belongs to the fault that stopped the table --------------

def test_6_a_build_fault_never_restores_a_later_cycle_to_an_old_state(rig: Rig) -> None:
    ctl, _hal, _clock = rig
    open_hole(rig)
    build_fault = ctl.fault("build.tiles_missing", "build", None, {})
    press_lift(rig)                                  # the hand goes on: close, raise
    lid_down(rig)
    turn_plates(rig)
    assert ctl.cycle.state == "dealing"
    ctl.clear_fault(build_fault, by="test")          # cleared, not yet resumed
    table_fault = ctl.fault("lid.not_rising", "motor.lid", None, {})
    ctl.clear_fault(table_fault, by="test")
    ctl.resume_after_fault()
    assert ctl.cycle.state == "dealing"              # not the stale hole_open


# -- finding 7: a power cut during an active build fault --------------------------------

def test_7_a_restart_with_a_build_fault_holds_for_refeed_and_keeps_it_active() -> None:
    bench, journal, first, ctl = booted(3)
    bench.clock.run_until(8.0)
    assert ctl.build.state == "building"
    jam = ctl.fault("head.jam", "side.2.head", 2, {})
    assert ctl.build.state == "fault"
    ctl.stop()                                       # switched off instead of cleared
    first.kill()
    again = compose_table(bench.config, bench.hal, ScopedClock(bench.clock), journal,
                          consumers=False)
    again.start()
    bench.clock.run_until(bench.clock.now() + 5.0)
    assert again.refeed_hold is not None and again.refeed_hold.active
    active = [f.id for f in again.faults if f.active]
    assert jam.id in active                          # still active, not history
    assert again.build.state != "building" and bench.table.motors_off()


# -- finding 8: diagnosis points at the sensor -------------------------------------------

def test_8_a_stuck_face_up_sensor_is_the_sensor_not_a_tile(rig: Rig) -> None:
    ctl, hal, _clock = rig
    homed(rig)
    hal.values["side.1.face_up"] = True
    for i in range(8):
        hal.values["side.1.tile_id"] = f"B{i % 9 + 1}"
        feed_tile(rig, [1])
    last = [f for f in ctl.faults if f.id == "tile.face_up"][-1].diagnosis()
    assert last.get("sensor_suspect") == "side.1.face_up"
    assert "face-up sensor of side 1" in last["verdict"]
    assert "replace tile" not in " ".join(last["remedy"])


def test_8_a_full_belt_with_a_tile_at_the_head_is_the_count_sensor(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.2.tile_id", "C3")                 # a tile reached the head, uncounted
    hal.edge("side.2.full", True)
    run_for(clock, 3.5)
    fault = ctl.faults[-1]
    assert fault.id == "count.blind"
    assert fault.diagnosis()["cause"] == "count_sensor"


def test_8_a_full_belt_with_nothing_at_the_head_is_a_conveyor_jam(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.2.full", True)
    run_for(clock, 3.5)
    fault = ctl.faults[-1]
    assert fault.id == "count.blind"
    diagnosis = fault.diagnosis()
    assert diagnosis["cause"] == "conveyor_jam"
    assert diagnosis["remedy"][0].startswith("clear the conveyor of side 2")


# -- finding 9: interlocks ---------------------------------------------------------------

def test_9_case_opened_cannot_be_cleared_while_the_case_reads_open(rig: Rig) -> None:
    ctl, hal, _clock = rig
    homed(rig)
    hal.edge("case_open", True)
    fault = ctl.faults[-1]
    assert fault.id == "case.opened"
    try:
        ctl.clear_fault(fault, by="test")
    except ClearRefused as exc:
        assert "case_open" in str(exc)
    else:
        raise AssertionError("cleared while the case reads open")
    assert fault.active
    hal.edge("case_open", False)
    ctl.clear_fault(fault, by="test")
    assert not fault.active


def test_9_link_lost_cannot_be_cleared_while_the_link_is_still_lost(rig: Rig) -> None:
    # An I/O board's HAL never takes a lost link back: cleared, the table sat silent
    # (tests/scenarios/review/ioboard_link_lost_cleared_while_lost.toml).
    ctl, hal, _clock = rig
    homed(rig)
    hal.link_lost = True                      # as the ioboard HAL reports it
    ctl.fault("link.lost", "link", None, {"reason": "test"})
    fault = ctl.faults[-1]
    with pytest.raises(ClearRefused, match="still lost"):
        ctl.clear_fault(fault, by="test")
    assert fault.active and hal.motors_off()
    hal.link_lost = False                     # a HAL whose link came back
    ctl.clear_fault(fault, by="test")
    assert not fault.active


def test_9_one_owner_refuses_a_second_user_of_the_lid(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    results: list[dict] = []
    assert diagnose(ctl, "lid_not_lowering", results.append) is None
    assert ctl.lid.state == "opening"
    diagnose(ctl, "set_stays_on_table", results.append)    # a second check at once
    assert results and results[-1]["checks"][0]["run"] is False
    assert "lid" in results[-1]["checks"][0]["why"]
    service = ctl.maintenance()
    try:
        service.jog("lid", "down", 1.0, by="tech")
    except MaintenanceRefused as exc:
        assert "lid" in str(exc)
    else:
        raise AssertionError("jog allowed while diagnosis moves the lid")
    hal.edge("key.lift.0", True)                     # the cycle asks the owner too
    run_for(clock, 1.0)
    assert ctl.cycle.state == "play"
    assert ctl.lid.state != "fault"


# -- finding 10: recurrence and bounded history ----------------------------------------

def test_10_fault_history_is_bounded_and_counted(rig: Rig) -> None:
    ctl, _hal, _clock = rig
    homed(rig)
    for _ in range(1000):
        ctl.fault("timing.drift", "lid.up", None, {})
    assert len(ctl.faults) <= 2 * FAULT_HISTORY
    assert ctl.fault_counts["timing.drift"] == 1000
    # The newest warning of a kind at one place carries it; one elsewhere stays too.
    ctl.fault("timing.drift", "plate.2", 2, {})
    active = [(f.id, f.where) for f in ctl.faults if f.active]
    assert active == [("timing.drift", "lid.up"), ("timing.drift", "plate.2")]


def test_10_one_slow_build_does_not_warn(rig: Rig) -> None:
    ctl, _hal, _clock = rig
    for build_s in (60.0, 61.0, 59.0, 60.0):
        ctl.supervisor.record_build(build_s)
    ctl.build._check_slow(200.0)                     # one rare slow draw
    assert not [f for f in ctl.faults if f.id == "build.slow"]
    ctl.build._check_slow(200.0)                     # it recurs: the ring is worth a look
    assert [f.id for f in ctl.faults] == ["build.slow"]


def raise_with_conveyor_2_jogged(rig: Rig, by: str) -> list[dict]:
    """A technician (`by`) jogs conveyor 2 while the walls rise: the build.held events."""
    ctl, _hal, _clock = rig
    homed(rig)
    fill_all(rig)
    events = events_of(ctl)
    ctl.owner.acquire("jog", ["conveyor.2"], f"jog conveyor.2 by {by}")
    raise_and_deal(rig)
    return [e for e in events if e["kind"] == "build.held"]


def test_9_a_build_waits_for_a_mechanism_a_technician_holds(rig: Rig) -> None:
    ctl, hal, _clock = rig
    held = raise_with_conveyor_2_jogged(rig, "tech")
    assert ctl.build.state == "idle" and not hal.values["motor.disc"]
    assert [e["why"] for e in held] == [
        "conveyor.2 is held by jog (jog conveyor.2 by tech)"]
    ctl.owner.release("jog")
    assert ctl.build.state == "building" and hal.values["motor.disc"] is True


def test_1_an_input_changed_by_the_safe_outputs_cannot_restart_a_motor(rig: Rig) -> None:
    # Found by the fuzzer: stopping a conveyor lets its belt slide back, so `full`
    # drops in the same instant; the build left paused_full and restarted the disc
    # before the latch was set.
    ctl, hal, clock = rig
    homed(rig)
    for n in range(4):
        hal.edge(f"side.{n}.full", True)
    run_for(clock, 1.0)
    assert ctl.build.state == "paused_full"
    write = hal.write

    def belt_slides_back(name: str, value: object) -> None:
        write(name, value)
        if name == "motor.side.3.conveyor" and value is False and hal.values["side.3.full"]:
            hal.edge("side.3.full", False)

    hal.write = belt_slides_back  # type: ignore[method-assign]
    ctl.fault("count.blind", "side.3.count", 3, {})
    assert hal.motors_off()
    assert ctl.outputs.refused == [("motor.disc", True), ("motor.ring", True)]


def test_7_the_refeed_hold_clears_only_when_the_operator_says_it_was_refed() -> None:
    # Found by the fuzzer: the hold cleared with any other action, and the next build
    # laid its stacks onto the half-built set still on the tracks.
    bench, again = power_cut_mid_build()
    bench.clock.run_until(bench.clock.now() + 5.0)
    hold = again.refeed_hold
    assert hold is not None
    try:
        again.clear_fault(hold, by="technician")
    except ClearRefused as exc:
        assert "--refed" in str(exc)
    else:
        raise AssertionError("the refeed hold cleared without a refeed")
    assert again.refeed_hold is hold and again.build.state == "idle"
    bench.table.refeed()
    again.clear_fault(hold, by="operator", refed=True)
    assert again.refeed_hold is None and again.build.state == "building"


def test_4_a_plate_home_glitch_at_rest_or_when_leaving_is_no_motion(rig: Rig) -> None:
    # Found by the fuzzer: a glitch at rest during homing turned a plate round (and
    # lifted a wall); a glitch as a turn began was taken for leaving home, and the
    # plate "came home" without turning.
    ctl, hal, clock = rig
    hal.values["side.1.head_home"] = False           # homing lasts a moment
    ctl.start()
    hal.edge("side.3.plate_home", False)
    run_for(clock, 0.02)
    hal.edge("side.3.plate_home", True)              # a 20 ms glitch at rest
    run_for(clock, 0.2)
    assert hal.values["motor.side.3.plate"] is False and ctl.plates[3].state == "home"
    hal.edge("side.1.head_home", True)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "play"
    ctl.plates[3].turn()
    hal.edge("side.3.plate_home", False)
    run_for(clock, 0.02)
    hal.edge("side.3.plate_home", True)              # a glitch just as it starts
    run_for(clock, 0.2)
    assert ctl.plates[3].state == "leaving" and hal.values["motor.side.3.plate"] is True


def test_4_a_real_home_left_again_over_a_slow_link_is_still_home(rig: Rig) -> None:
    # Over the board's link the stop arrives late and the cam leaves home again; the
    # two edges may arrive bunched. The board's stamps say home lasted 80 ms: real.
    ctl, hal, clock = rig
    homed(rig)
    ctl.plates[1].turn()
    hal.edge("side.1.plate_home", False)
    run_for(clock, 2.3)
    seen = clock.now()
    hal.edge("side.1.plate_home", True, at=seen - 0.09)
    run_for(clock, 0.01)
    hal.edge("side.1.plate_home", False, at=seen - 0.01)
    assert ctl.plates[1].state == "home" and hal.values["motor.side.1.plate"] is False
    assert ctl.plates[1].glitches == 0


def test_2_a_raise_after_homing_waits_for_every_plate_to_be_home(config) -> None:
    # Found by the power-cut bench: after a cut in the raise, homing ended while a plate
    # coming round had its home edge still being confirmed; the raise then asked that
    # plate to turn from `returning` (MachineError, E99).
    clock = VirtualClock()
    hal = ScriptedHal(clock)
    journal = MemoryJournal()
    walls = [[["W1", "W2"]] * 18 for _ in range(4)]
    journal.save({"clean": False, "cycle": 1, "build": "staged", "staged_set": "A",
                  "staged_walls": walls, "raising": True, "set_building": "A"})
    ctl = compose_table(config, hal, clock, journal, consumers=False)
    events = events_of(ctl)
    hal.values["side.2.plate_home"] = False
    hal.values["side.1.head_home"] = False
    ctl.start()
    assert ctl.plates[2].state == "returning"
    hal.edge("side.2.plate_home", True)              # being confirmed (60 ms)
    hal.edge("side.1.head_home", True)               # the last cam: homing asks again
    assert ctl.cycle.state == "homing"
    run_for(clock, 0.1)
    assert ctl.cycle.state == "raising"
    assert not [e for e in events if e["kind"] == "software.error"]
    assert all(p.state == "leaving" for p in ctl.plates)


def test_5_a_failed_lower_lid_sensor_is_never_run_on_a_timer(rig: Rig) -> None:
    # lid.lower guards the feed motors and the walls: a timer standing in for it would
    # call an object that later blocks the lid part open "closed" (review of issue 11,
    # tests/scenarios/review/lid_lower_failed_then_blocked.toml).
    ctl, hal, clock = rig
    start_opening(rig)
    run_for(clock, 1.45)
    hal.edge("lid.upper", True)
    assert ctl.cycle.state == "hole_open"
    hal.edge("key.lift.0", True)
    run_for(clock, 0.5)
    hal.edge("key.lift.0", False)
    assert ctl.cycle.state == "closing"
    hal.edge("lid.upper", False)
    run_for(clock, 3.5)                              # at the bottom; lid.lower is dead
    fault = ctl.faults[-1]
    assert fault.id == "lid.not_lowering" and fault.evidence["suspect_sensor"] == "lid.lower"
    ctl.clear_fault(fault, by="test")
    ctl.resume_after_fault()
    assert hal.values["motor.lid"] == "up"           # travel back to the upper stop first
    run_for(clock, 1.45)                             # the whole travel: the sensor failed
    hal.edge("lid.upper", True)
    run_for(clock, 0.07)                             # a part-length move's stop stays
    ids = [f.id for f in ctl.faults]
    assert "sensor.degraded" not in ids and ctl.supervisor.degraded == set()
    assert hal.values["motor.lid"] == "down"
    hal.edge("lid.upper", False)
    run_for(clock, 3.5)                              # no timed stop: a stop-fault again
    assert ctl.faults[-1].id == "lid.not_lowering" and ctl.faults[-1].active
    assert hal.motors_off()


def _raise_with_plate_0_stuck(rig: Rig):
    """Walls rising; plates 1-3 make their turn, plate 0 never leaves: plate.stuck."""
    ctl, _hal, clock = rig
    homed(rig)
    fill_all(rig)
    lift_to_raising(rig)
    turn_plates(rig, (1, 2, 3))
    run_for(clock, 5.9)
    stuck = [f for f in ctl.faults if f.active and f.id == "plate.stuck"]
    assert stuck and ctl.cycle.state == "fault"
    return stuck[0]


def test_4_the_walls_are_not_up_while_a_plate_still_turns(rig: Rig) -> None:
    """Fuzz seed 1 run 1243: a plate that had made its turn was sent round again at the
    resume, and the walls were committed when another plate came home, with this one
    half way round."""
    ctl, hal, clock = rig
    stuck = _raise_with_plate_0_stuck(rig)
    hal.edge("side.1.plate_home", False)    # plate 1 found off home at the resume
    run_for(clock, 0.5)
    ctl.clear_fault(stuck, by="tech")
    ctl.resume_after_fault()
    run_for(clock, 0.01)
    assert ctl.plates[1].state == "returning"
    hal.edge("side.0.plate_home", False)
    run_for(clock, 2.0)
    hal.edge("side.0.plate_home", True)     # plate 0 home, plate 1 still turning
    run_for(clock, 0.2)
    assert ctl.cycle.state == "raising"
    assert not any(e["kind"] == "walls.committed" for e in events_of(ctl))
    hal.edge("side.1.plate_home", True)
    run_for(clock, 0.2)
    assert ctl.cycle.state != "raising"


def test_4_a_home_sensor_glitch_at_the_resume_sends_no_plate_round(rig: Rig) -> None:
    """The same run: the glitch itself, 20 ms old at the resume, was taken as off home."""
    ctl, hal, clock = rig
    stuck = _raise_with_plate_0_stuck(rig)
    hal.edge("side.1.plate_home", False)    # a glitch, still being told apart
    run_for(clock, 0.02)
    ctl.clear_fault(stuck, by="tech")
    ctl.resume_after_fault()
    hal.edge("side.1.plate_home", True)
    run_for(clock, 0.2)
    assert ctl.plates[1].state == "home" and not hal.values["motor.side.1.plate"]


def test_4_a_late_home_edge_does_not_make_the_next_home_look_early(rig: Rig) -> None:
    """Over the board's link an edge can reach the loop late; its stamp says when the cam
    passed home. The next turn began then, so its home is judged from that stamp (a real
    home was taken for a glitch and the head turned once more)."""
    ctl, hal, clock = rig
    homed(rig)
    learned = ctl.supervisor.learned(ctl.sides[0].key)
    hal.edge("side.0.count", True)                   # a tile: the head turns
    run_for(clock, 0.01)
    start = clock.now()
    hal.edge("side.0.head_home", False)
    run_for(clock, 0.1)
    hal.edge("side.0.count", False)
    run_for(clock, 0.1)
    hal.edge("side.0.count", True)                   # a second tile waits
    run_for(clock, 0.1)
    hal.edge("side.0.count", False)
    run_for(clock, start + learned + 0.2 - clock.now())    # the edge reaches us 0.2 s late
    passed = clock.now() - 0.2
    hal.edge("side.0.head_home", True, at=passed)
    hal.edge("side.0.head_home", False, at=passed + 0.02)
    run_for(clock, passed + learned - clock.now())   # the next home, on time
    hal.edge("side.0.head_home", True, at=clock.now())
    run_for(clock, 0.01)
    assert not [e for e in events_of(ctl) if e["kind"] == "sensor.glitch"]
    assert ctl.sides[0].stacked == 2 and ctl.sides[0].state != "fault"


def test_9_a_stop_missed_while_the_board_is_silent_is_no_jam(rig: Rig) -> None:
    # An outage while a head turned: its home edge was on the dead cable, the head's
    # k·T ran out 1 ms before the link's timeout, and head.jam stayed after E80 had
    # cleared itself. A missed stop proves nothing while the board is silent: the link
    # loss is the one fault.
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.1.count", True)            # a tile: the head turns
    hal.edge("side.1.head_home", False)
    assert hal.values["motor.side.1.head"] is True
    hal.link_quiet = True                     # nothing heard from the board for a while
    run_for(clock, 3.0)                       # the head's k·T long past
    assert [f.id for f in ctl.faults] == []
    hal.link_lost = True                      # then the link's own timeout
    ctl.fault("link.lost", "link", None, {"reason": "silence"})
    run_for(clock, 3.0)
    assert [f.id for f in ctl.faults] == ["link.lost"]


def test_9_a_stop_missed_with_the_board_heard_is_still_a_jam(rig: Rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.1.count", True)
    hal.edge("side.1.head_home", False)
    hal.link_quiet = True
    run_for(clock, 3.0)
    hal.link_quiet = False                    # the board talks: the edge never came
    run_for(clock, 1.0)
    assert [f.id for f in ctl.faults] == ["head.jam"]
