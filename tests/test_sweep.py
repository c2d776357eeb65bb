"""The sweep before staging: walls are never staged while foreign tiles or tiles of the
other set may be on the disc or in them."""

from __future__ import annotations

from firmware.controller import Controller
from mjtable_core.clock import VirtualClock
from rules.tiles import set_composition
from tests.conftest import ScriptedHal, run_for
from tests.steps import feed_tile, homed

Rig = tuple[Controller, ScriptedHal, VirtualClock]


def test_the_sweep_lasts_as_long_as_the_slowest_tile_of_the_build_took(rig: Rig) -> None:
    ctl, _hal, clock = rig
    homed(rig)
    feed_tile(rig)
    run_for(clock, 3.0)            # the disc once took 3.55 s to bring the next tiles
    for _ in range(ctl.sides[0].target - 1):
        feed_tile(rig)
    assert ctl.build.state == "sweeping"
    run_for(clock, ctl.timing.sweep_s + 0.01)
    assert ctl.build.state == "sweeping"    # a tile left on the disc may still come
    run_for(clock, 3.55 - ctl.timing.sweep_s)
    assert ctl.build.state == "staged"


def _feed_set(rig: Rig, codes: list[str]) -> None:
    ctl, hal, _clock = rig
    sides = len(ctl.geometry.sides)
    for n in range(ctl.sides[0].target):
        for side in ctl.geometry.sides:     # a reader at each head names every tile
            hal.values[f"side.{side}.tile_id"] = codes[n * sides + side]
        feed_tile(rig)


def test_walls_are_counted_by_tile_before_staging(rig: Rig) -> None:
    ctl, _hal, clock = rig
    homed(rig)
    codes = [code for code, copies in set_composition(144).items() for _ in range(copies)]
    _feed_set(rig, codes)
    run_for(clock, 5.0)
    assert ctl.build.state == "staged"
    assert not any(f.active for f in ctl.faults)


def test_walls_holding_five_of_a_tile_are_held_for_the_operator(rig: Rig) -> None:
    # A foreign 1-bamboo in place of a flower: the count is right, the walls are not.
    ctl, hal, clock = rig
    homed(rig)
    codes = [code for code, copies in set_composition(144).items() for _ in range(copies)]
    codes[-1] = "B1"
    _feed_set(rig, codes)
    run_for(clock, 5.0)
    assert ctl.build.state != "staged"
    fault = next(f for f in ctl.faults if f.active)
    assert (fault.id, fault.code, fault.evidence["over"]) == (
        "build.extra_tiles", "E51", {"B1": 5})
    assert fault.diagnosis()["suspects"][0]["part"] == "hole"
    assert hal.read("display") == "E51"
