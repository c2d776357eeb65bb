"""A face-up tile's fault names the tile it read and its wall slot, and that fault is
open to anyone (`faults`, `subscribe`, the event log): with a stuck face-up sensor
every tile of the walls being built goes out, before those walls are dealt."""

from __future__ import annotations

import json

from firmware.handoff import public_event
from tests.conftest import events_of
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
