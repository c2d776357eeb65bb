"""A face-up tile's fault names the tile it read and its wall slot, and that fault is
open to anyone (`faults`, `subscribe`, the event log): with a stuck face-up sensor
every tile of the walls being built goes out, before those walls are dealt."""

from __future__ import annotations

import json

from firmware.controller import compose_table
from firmware.hands.handoff import public_event
from mjtable_core.clock import VirtualClock
from tests.conftest import ScriptedHal, events_of
from tests.steps import feed_tile, homed

TILES = ["B1", "C7", "W3", "D2", "F4", "B9"]


def test_a_stuck_face_up_sensor_does_not_publish_the_next_walls(rig) -> None:
    ctl, hal, _clock = rig
    events = events_of(ctl)
    homed(rig)
    hal.values["side.1.face_up"] = True
    for tile in TILES:
        hal.values["side.1.tile_id"] = tile
        feed_tile(rig, [1])
    faults = [e for e in events if e["kind"] == "fault" and e["id"] == "tile.face_up"]
    assert faults, "the stuck sensor raised no face-up fault"
    shown = json.dumps([public_event(e) for e in faults])
    leaked = [t for t in TILES if f'"{t}"' in shown]
    assert leaked == [], f"tiles of walls not yet dealt in open events: {leaked}"


def face_up_diagnoses(config, tiles: tuple[str, str]) -> list[dict]:
    """The open diagnoses of two face-up tiles arriving in the walls being built, with
    W5 face up in an earlier build of the same set (revealed since)."""
    clock = VirtualClock()
    hal = ScriptedHal(clock)
    rig = (compose_table(config, hal, clock, consumers=False), hal, clock)
    ctl = rig[0]
    events = events_of(ctl)
    homed(rig)
    ctl.face_up.seen(ctl.build.set_name, ctl.cycle.number - 2, [1, 3, 0])
    hal.values["side.1.face_up"] = True
    for tile in tiles:
        hal.values["side.1.tile_id"] = tile
        feed_tile(rig, [1])
    # One cause, one fault: the second face-up is a repeat of the first, its diagnosis
    # worked out again. Both what was said at first and what is said now must not depend
    # on which tile is which.
    said = [e for e in events if e["kind"] == "fault" and e["id"] == "tile.face_up"]
    active = [f for f in ctl.faults if f.id == "tile.face_up"]
    assert len(said) == 1 and len(active) == 1 and active[0].repeats == 2
    now = public_event({"kind": "fault", **active[0].as_dict()})
    return [public_event(e)["diagnosis"] for e in said] + [now["diagnosis"]]


def test_a_face_up_diagnosis_does_not_say_which_tile_came_back(config) -> None:
    """`builds_seen` matched the face-up tile by identity: two face-ups in the walls
    being built were told apart by which one is the W5 seen face up before ("seen in
    builds 1 and 3" against "seen in build 3"), naming a tile before those walls are
    dealt. What anyone sees must not depend on which tile is which."""
    assert face_up_diagnoses(config, ("W5", "B2")) == face_up_diagnoses(config, ("B2", "W5"))
