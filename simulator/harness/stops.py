"""What the table must stop, physically, once the firmware reports a fault: the
referee's own table (simulator/harness/referee.py), written apart from the firmware's
fault kinds on purpose.

A fault kind says what its safe state stops; a referee that read it would pass a kind
that stops too little. Here the question is answered again from the table's mechanics:

- a lid, a plate, the dice or the case that fails, or a table that cannot trust itself
  (its software, its storage): anything still moving may meet it, so every motor;
- the build's path failing (a head, a belt, a count, the set's tiles): the feed and the
  heads, while the lid and the plates may finish the hand above it;
- the board's link lost: every motor, by the board's own failsafe within its limit, as
  a stop sent over a lost link never arrives;
- a warning or a note: play goes on, nothing must stop.

The firmware's report says *when* (a fault's instant); this table says *what*. A fault
this table does not name is judged by its report's code: an E stops every motor until
the referee is told otherwise here. Every fault an injected problem of the scenario
format may raise (simulator/scenario.py, DETECTED_BY) is named
(tests/test_referee_table.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mjtable_core.geometry import Geometry

EVERY, BUILD = "every", "build"


@dataclass(frozen=True)
class MustStop:
    """The motors a fault must leave stopped until it is cleared."""

    motors: str                 # EVERY or BUILD
    # Stopped by the board's failsafe (the link is lost): judged once its limit is over.
    failsafe: bool = False


TABLE_STOPS = MustStop(EVERY)
BUILD_STOPS = MustStop(BUILD)

MUST_STOP: dict[str, MustStop | None] = {
    # The lid: the feed must not run under an open lid, the plates must not lift walls
    # into it.
    "lid.not_rising": TABLE_STOPS,
    "lid.not_lowering": TABLE_STOPS,
    "lid.sensor_conflict": TABLE_STOPS,
    # The build's path: a jammed head or belt is not driven on, and the feed does not
    # push tiles onto a path that cannot take them.
    "head.jam": BUILD_STOPS,
    "count.double": BUILD_STOPS,
    "count.blind": BUILD_STOPS,
    "build.tiles_missing": BUILD_STOPS,
    "build.extra_tiles": BUILD_STOPS,
    # A plate lifts a wall through the table top; the dice sit under the lid's centre.
    "plate.stuck": TABLE_STOPS,
    "dice.stuck": TABLE_STOPS,
    # The board no longer hears the host: its failsafe stops it all.
    "link.lost": MustStop(EVERY, failsafe=True),
    "link.version": MustStop(EVERY, failsafe=True),
    # Hands inside the table, or a table that cannot trust its own state.
    "case.opened": TABLE_STOPS,
    "case.contacts": TABLE_STOPS,
    "software.error": TABLE_STOPS,
    "storage.failed": TABLE_STOPS,
    # Warnings and notes: play goes on.
    "build.slow": None,
    "tile.face_up": None,
    "timing.drift": None,
    "sensor.degraded": None,
    "sensor.silent": None,
    "sensor.flaky": None,
    "power.recovered": None,
    "build.interrupted": None,
}


def must_stop(event: Mapping[str, Any]) -> MustStop | None:
    """What a fault event (`id`, and `code` as the table shows it) must stop."""
    fault_id = event["id"]
    if fault_id in MUST_STOP:
        return MUST_STOP[fault_id]
    return TABLE_STOPS if str(event.get("code", "")).startswith("E") else None


def feed_motors(geometry: Geometry) -> frozenset[str]:
    """The motors that move tiles under the lid."""
    return frozenset({"motor.disc", "motor.ring",
                      *[f"motor.side.{n}.conveyor" for n in geometry.sides]})


def build_motors(geometry: Geometry) -> frozenset[str]:
    """What a build fault stops: the feed and every stacking head."""
    return frozenset({*feed_motors(geometry),
                      *[f"motor.side.{n}.head" for n in geometry.sides]})


def motors_of(must: MustStop, geometry: Geometry, every: frozenset[str]) -> frozenset[str]:
    """The motors `must` names on a table with these motors (`every`)."""
    return build_motors(geometry) if must.motors == BUILD else every
