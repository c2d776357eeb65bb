"""Scripted table steps for tests against the ScriptedHal: what the sensors of a real
table do, one step at a time — homing, a tile reaching a head, the lid travelling,
the plates turning. Times are a little under the learned ones (lid 1.5 s, plate
2.5 s), so each step looks like a healthy mechanism to the supervisor."""

from __future__ import annotations

from collections.abc import Iterable

from firmware.controller import Controller
from mjtable_core.clock import VirtualClock
from tests.conftest import ScriptedHal, run_for

Rig = tuple[Controller, ScriptedHal, VirtualClock]


def homed(rig: Rig) -> None:
    """Powered on: homed, playing, the next set building."""
    ctl, _hal, clock = rig
    ctl.start()
    run_for(clock, 0.01)
    assert ctl.cycle.state == "play"
    assert ctl.build.state == "building"


def feed_tile(rig: Rig, sides: Iterable[int] | None = None) -> None:
    """One tile reaches the head of each of `sides` (all by default): counted, and the
    head turns it onto its stack."""
    ctl, hal, clock = rig
    sides = list(ctl.geometry.sides if sides is None else sides)
    for n in sides:
        hal.edge(f"side.{n}.count", True)
        hal.edge(f"side.{n}.head_home", False)
    run_for(clock, 0.45)
    for n in sides:
        hal.edge(f"side.{n}.head_home", True)
        hal.edge(f"side.{n}.count", False)
    run_for(clock, 0.1)


def fill_all(rig: Rig) -> None:
    """Every side's stacks built and swept: the set is staged."""
    ctl, _hal, clock = rig
    for _ in range(ctl.sides[0].target):
        feed_tile(rig)
    run_for(clock, ctl.timing.sweep_s + 0.01)


def press_lift(rig: Rig) -> None:
    _ctl, hal, clock = rig
    hal.edge("key.lift.0", True)
    run_for(clock, 1.0)
    hal.edge("key.lift.0", False)


def lid_up(rig: Rig) -> None:
    """The lid leaves its lower stop and reaches the upper one."""
    _ctl, hal, clock = rig
    hal.edge("lid.lower", False)
    run_for(clock, 1.2)
    hal.edge("lid.upper", True)


def lid_down(rig: Rig) -> None:
    """The lid leaves its upper stop and reaches the lower one."""
    _ctl, hal, clock = rig
    hal.edge("lid.upper", False)
    run_for(clock, 1.2)
    hal.edge("lid.lower", True)


def turn_plates(rig: Rig, sides: Iterable[int] | None = None) -> None:
    """The plates of `sides` (all by default) leave home and come back: a wall turn."""
    ctl, hal, clock = rig
    sides = list(ctl.geometry.sides if sides is None else sides)
    for n in sides:
        hal.edge(f"side.{n}.plate_home", False)
    run_for(clock, 2.0)
    for n in sides:
        hal.edge(f"side.{n}.plate_home", True)
    run_for(clock, 0.1)


def open_hole(rig: Rig) -> None:
    """From power on: homed, the next set staged, a lift key, the lid at its upper
    stop: the hole open for the played tiles."""
    ctl, _hal, clock = rig
    homed(rig)
    fill_all(rig)
    press_lift(rig)
    assert ctl.cycle.state == "opening"
    lid_up(rig)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "hole_open" and ctl.lid.state == "open"


def lift_to_raising(rig: Rig) -> None:
    """A staged set: the lift key opens the lid, a second press closes it, the walls rise."""
    ctl, _hal, clock = rig
    press_lift(rig)
    assert ctl.cycle.state == "opening"
    lid_up(rig)
    press_lift(rig)
    lid_down(rig)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "raising"


def raise_and_deal(rig: Rig) -> None:
    ctl, hal, _clock = rig
    lift_to_raising(rig)
    assert all(hal.values[f"motor.side.{n}.plate"] for n in ctl.geometry.sides)
    turn_plates(rig)
    assert ctl.cycle.state == "dealing"
