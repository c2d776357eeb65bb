"""A part-length motion's stop: a glitch at its start is never taken for the stop.

A whole motion has a minimum travel (`Supervisor.too_early`); a motion resumed from
between the stops may end at once, so its stop is believed only once it has stayed
CONFIRM_S (a glitch is shorter, a real stop stays).
"""

from __future__ import annotations

from typing import Any

from firmware.controller import Controller
from firmware.machines.supervisor import CONFIRM_S
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import Scenario
from tests.conftest import events_of, run_for
from tests.steps import open_hole, press_lift


def test_a_glitch_at_a_resumed_lid_closing_does_not_raise_walls_under_an_open_lid() -> None:
    # The lid is halted part way down, and resumed; at that instant its lower stop
    # glitches for 20 ms. Believed, the lid would stop part open and the plates would
    # turn under it (the lower stop is the walls' interlock).
    harness = Harness(load_config(), Scenario(seed=3, cycles=2, play_time_s=20.0))
    table = harness.table
    unsafe: list[str] = []
    resumed: list[float] = []

    def witness(name: str, value: Any) -> None:
        if name.endswith(".plate") and value is True and not table.physical["lid.lower"]:
            unsafe.append(f"{name} on with the lid at {table.lid.position:.0%}")

    table.heed(witness)

    def halt() -> None:
        assert harness.ctl.lid.state == "closing"
        harness.ctl.halt("test")

    def resume() -> None:
        assert 0.1 < table.lid.position < 0.9
        harness.ctl.resume_after_fault()
        resumed.append(harness.clock.now())
        table._pulse("lid.lower", 0.002, 0.02)

    def hook(ctl: Controller) -> None:
        def on_event(event: dict[str, Any]) -> None:
            if event["kind"] == "phase" and event["state"] == "closing" and not resumed:
                harness.clock.call_later(0.6, halt)
                harness.clock.call_later(2.0, resume)
        ctl.subscribers.append(on_event)

    harness.boot_hooks.append(hook)
    report = harness.run()
    assert resumed
    assert unsafe == []
    assert report["referee_violations"] == []
    assert [f["id"] for f in report["faults"]] == []
    assert report["cycles_completed"] == 2 and report["wrong_handoffs"] == 0


def test_a_resumed_lid_opening_takes_its_upper_stop_only_once_it_stays(rig) -> None:
    ctl, hal, clock = rig
    ctl.start()
    run_for(clock, 0.01)
    events = events_of(ctl)
    ctl.lid.open()
    hal.edge("lid.lower", False)
    run_for(clock, 0.5)
    ctl.halt("test")                        # part way up
    ctl.resume_after_fault()
    ctl.lid.open()                          # from between the stops: part length
    assert hal.values["motor.lid"] == "up"
    hal.edge("lid.upper", True)             # a glitch at once ...
    run_for(clock, 0.02)
    hal.edge("lid.upper", False)            # ... gone in 20 ms
    assert ctl.lid.state == "opening" and hal.values["motor.lid"] == "up"
    assert [e["sensor"] for e in events if e["kind"] == "sensor.glitch"] == ["lid.upper"]
    run_for(clock, 0.3)
    hal.edge("lid.upper", True)             # the stop, and it stays
    assert ctl.lid.state == "opening"
    run_for(clock, CONFIRM_S + 0.01)
    assert ctl.lid.state == "open" and hal.values["motor.lid"] == "off"
    assert not [e for e in events if e["kind"] == "fault"]


def test_a_glitch_at_a_plate_coming_round_from_off_home_is_not_home(rig) -> None:
    # A plate's part-length motion (coming round from off home, learn=False) has no
    # minimum travel either; its home edges are confirmed like every plate edge.
    ctl, hal, clock = rig
    hal.values["side.2.plate_home"] = False
    ctl.start()
    assert ctl.plates[2].state == "returning"
    assert not ctl.supervisor.too_early("plate.2")          # no bound to judge by
    hal.edge("side.2.plate_home", True)                     # a glitch at once ...
    run_for(clock, 0.02)
    hal.edge("side.2.plate_home", False)                    # ... gone in 20 ms
    run_for(clock, 0.5)
    assert ctl.plates[2].state == "returning" and hal.values["motor.side.2.plate"] is True
    assert ctl.plates[2].glitches == 1
    hal.edge("side.2.plate_home", True)                     # home, and it stays
    run_for(clock, CONFIRM_S + 0.01)
    assert ctl.plates[2].state == "home" and hal.values["motor.side.2.plate"] is False


def test_a_lower_stop_pulse_ending_as_the_lid_motor_stops_raises_no_wall(rig) -> None:
    # The lid is blocked part open; a pulse on lid.lower late in its travel passes the
    # minimum travel and is taken for the stop. The pulse ends in the very instant the
    # motor stops: the lid is driven down again, and no plate may start meanwhile.
    ctl, hal, clock = rig
    open_hole(rig)
    press_lift(rig)
    assert ctl.cycle.state == "closing"
    hal.edge("lid.upper", False)
    run_for(clock, 1.3)                                     # past 0.7 of 1.5 s
    write = hal.write

    def pulse_ends_at_stop(name: str, value: Any) -> None:
        write(name, value)
        if name == "motor.lid" and value == "off" and hal.values["lid.lower"]:
            hal.edge("lid.lower", False)
    hal.write = pulse_ends_at_stop                          # type: ignore[method-assign]
    hal.edge("lid.lower", True)
    run_for(clock, 0.01)
    assert not any(hal.values[f"motor.side.{n}.plate"] for n in ctl.geometry.sides)
    assert ctl.cycle.state == "closing" and ctl.lid.state == "closing"
    assert hal.values["motor.lid"] == "down"
