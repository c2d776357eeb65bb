"""A plate found off home at rest, outside homing, on the simulated table.

The cam is turned off home by hand (or coasts past it) while its motor is off. The
firmware must never believe it home: walls are not committed over a plate mid-turn,
and a plate whose track may hold stacks is not turned over them (plate.stuck).
"""

from __future__ import annotations

from typing import Any

from firmware.controller import Controller
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import Scenario

PUSH = 0.2      # of a turn: past the home window, short of where the wall rises


def _harness(cycles: int) -> Harness:
    return Harness(load_config(), Scenario(seed=3, cycles=cycles, play_time_s=20.0))


def _plate_motor_ons(harness: Harness, side: int) -> list[float]:
    ons: list[float] = []

    def witness(name: str, value: Any) -> None:
        if name == f"motor.side.{side}.plate" and value is True:
            ons.append(harness.clock.now())

    harness.table.heed(witness)
    return ons


def test_a_plate_pushed_off_home_during_the_raise_comes_round_before_the_walls_commit() -> None:
    # Plate 0 has made its turn; plate 2 (a slow motor) still turns. Plate 0 is then
    # turned off home. Committing the walls now would commit them over a plate
    # mid-turn (the referee's wall.not_up): it comes round first, over its empty track.
    harness = _harness(cycles=2)
    harness.table.slow_motor("motor.side.2.plate", 1.4)
    pushed: list[float] = []
    ons = _plate_motor_ons(harness, 0)

    def poll() -> None:
        ctl = harness.ctl
        if ctl.plates[0].state == "home" and ctl.plates[2].state == "returning":
            harness.table.sides[0].plate.turn_by_hand(PUSH)
            pushed.append(harness.clock.now())
            return
        harness.clock.call_later(0.01, poll)

    def hook(ctl: Controller) -> None:
        def on_event(event: dict[str, Any]) -> None:
            if event["kind"] == "raising" and not pushed and event["cycle"] == 1:
                harness.clock.call_later(0.01, poll)
        ctl.subscribers.append(on_event)

    harness.boot_hooks.append(hook)
    report = harness.run()
    assert pushed
    assert report["referee_violations"] == []
    assert report["cycles_completed"] == 2 and report["wrong_handoffs"] == 0
    assert [t for t in ons if t > pushed[0]], "plate 0 came round after the push"
    assert not [f for f in report["faults"] if f["id"] == "plate.stuck"]


def test_a_plate_pushed_off_home_in_play_is_stuck_never_turned_over_the_stacks() -> None:
    # In play the next set is being built onto the tracks: a turn of plate 1 would lift
    # its stacks onto the hand in play. It is plate.stuck, its motor never on; a
    # technician turns it home by hand, clears the fault, and the table goes on.
    harness = _harness(cycles=2)
    pushed: list[float] = []
    ons = _plate_motor_ons(harness, 1)

    def push() -> None:
        assert harness.ctl.build.state == "building"
        harness.table.sides[1].plate.turn_by_hand(PUSH)
        pushed.append(harness.clock.now())

    def mend(fault: Any) -> None:
        harness.table.sides[1].plate.home_by_hand()
        harness.ctl.clear_fault(fault, by="technician")
        harness.ctl.resume_after_fault()

    def hook(ctl: Controller) -> None:
        def on_event(event: dict[str, Any]) -> None:
            if event["kind"] == "phase" and event["state"] == "play" and (
                    event["cycle"] == 1 and not pushed):
                harness.clock.call_later(5.0, push)
            elif event["kind"] == "fault" and event["id"] == "plate.stuck":
                fault = next(f for f in ctl.faults if f.active and f.id == "plate.stuck")
                harness._pending += 1       # a technician is on the way

                def done() -> None:
                    harness._pending -= 1
                    mend(fault)
                harness.clock.call_later(10.0, done)
        ctl.subscribers.append(on_event)

    harness.boot_hooks.append(hook)
    report = harness.run()
    assert pushed
    stuck = [f for f in report["faults"] if f["id"] == "plate.stuck"]
    assert len(stuck) == 1
    assert stuck[0]["where"] == "side.1.plate"
    assert stuck[0]["evidence"]["found_off_home"] is True
    assert stuck[0]["sim_time_s"] - pushed[0] < 0.2      # settled, then said at once
    assert not [t for t in ons if pushed[0] <= t <= stuck[0]["sim_time_s"] + 10.0]
    assert report["referee_violations"] == []
    assert report["cycles_completed"] == 2 and report["wrong_handoffs"] == 0


def test_a_plate_pushed_off_home_and_cleared_without_a_fix_is_stuck_again() -> None:
    # The technician clears the fault without turning the plate home: the resume puts
    # the plate back as it was parked, and it is said off home again, never turned.
    harness = _harness(cycles=2)
    pushed: list[float] = []
    ons = _plate_motor_ons(harness, 1)
    cleared: list[int] = []

    def push() -> None:
        harness.table.sides[1].plate.turn_by_hand(PUSH)
        pushed.append(harness.clock.now())

    def hook(ctl: Controller) -> None:
        def on_event(event: dict[str, Any]) -> None:
            if event["kind"] == "phase" and event["state"] == "play" and (
                    event["cycle"] == 1 and not pushed):
                harness.clock.call_later(5.0, push)
            elif event["kind"] == "fault" and event["id"] == "plate.stuck" and not cleared:
                fault = next(f for f in ctl.faults if f.active and f.id == "plate.stuck")
                harness._pending += 1

                def clear() -> None:
                    harness._pending -= 1
                    cleared.append(1)
                    ctl.clear_fault(fault, by="technician")
                    ctl.resume_after_fault()
                harness.clock.call_later(10.0, clear)
        ctl.subscribers.append(on_event)

    harness.boot_hooks.append(hook)
    report = harness.run()
    stuck = [f for f in report["faults"] if f["id"] == "plate.stuck"]
    assert cleared and len(stuck) == 2
    assert all(f["evidence"]["found_off_home"] for f in stuck)
    assert not [t for t in ons if t >= pushed[0]]
    assert report["referee_violations"] == []
    assert any(f.active and f.id == "plate.stuck" for f in harness.ctl.faults)
