"""Random scenarios for soak runs: faults of every kind, each with its technician.

`random_scenario` puts one fault every ~`every` cycles, drawn from TEMPLATES: each is
a fault of simulator/scenario.py KINDS (not link_*, nor host_stall, which raises
nothing the soak could count as detected) at a place and phase taken from the
tests/scenarios examples, with the technician action those examples use. Places are
varied (side, set, tile) within what the kind allows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from mjtable_core.geometry import REFERENCE
from simulator.scenario import ActionSpec, Expect, FaultSpec, Scenario

# (fault fields, [(after_fault, do, where)], faults it may raise besides the expected)
# `{s}` is a side 0–3, `{set}` a set; `expect` is what the example says must be raised.


@dataclass(frozen=True)
class Template:
    kind: str
    where: str
    phase: str | None
    expect: tuple[str, ...]
    actions: tuple[tuple[str, str, str | None], ...]
    fields: tuple[tuple[str, Any], ...] = ()
    allow: tuple[str, ...] = ()
    at_s: float | None = None


TEMPLATES: tuple[Template, ...] = (
    Template("tile_jam", "side.{s}.head", "build", ("head.jam",),
             (("head.jam", "clear_jam", "side.{s}.head"),)),
    Template("tile_jam", "side.{s}.conveyor", "build", ("count.blind",),
             (("count.blind", "clear_jam", "side.{s}.conveyor"),)),
    Template("sensor_stuck", "side.{s}.count", "build", ("count.blind",),
             (("count.blind", "replace_part", "side.{s}.count"),), (("value", False),)),
    Template("sensor_dirty", "side.{s}.count", "build", ("count.double",),
             (("count.double", "clean_sensor", "side.{s}.count"),),
             (("probability", 0.3), ("mode", "double"))),
    Template("sensor_dirty", "side.{s}.count", "build", ("count.blind",),
             (("count.blind", "clean_sensor", "side.{s}.count"),),
             (("probability", 0.3), ("mode", "miss"))),
    Template("dead_magnet_tile", "set.{set}", "build", ("build.tiles_missing",),
             (("build.tiles_missing", "replace_tile", "set.{set}"),), (("tile", "W1"),)),
    Template("weak_magnet_tile", "set.{set}", "build", ("tile.face_up",), (),
             (("tile", "B5"),)),
    Template("missing_tiles", "table", "lid_up", ("build.tiles_missing",),
             (("build.tiles_missing", "top_up", None),), (("count", 1),)),
    Template("extra_tiles", "hole", "lid_up", ("build.extra_tiles",),
             (("build.extra_tiles", "remove_extra", None),), (("count", 1),)),
    Template("motor_dead", "motor.dice", "raise", ("dice.stuck",),
             (("dice.stuck", "replace_part", "motor.dice"),)),
    Template("motor_dead", "motor.lid", "build", ("lid.not_rising",),
             (("lid.not_rising", "replace_part", "motor.lid"),)),
    Template("motor_dead", "motor.side.{s}.plate", "lid_down", ("plate.stuck",),
             (("plate.stuck", "replace_part", "motor.side.{s}.plate"),)),
    # A worn motor's warning sends the technician to replace it: left alone, a second
    # and a third wear on the same motor would compound until its motion times out.
    Template("motor_slow", "motor.side.{s}.head", "build", ("timing.drift",),
             (("timing.drift", "replace_part", "motor.side.{s}.head"),),
             (("factor", 1.5),), allow=("build.slow",)),
    Template("motor_slow", "motor.lid", "build", ("timing.drift",),
             (("timing.drift", "replace_part", "motor.lid"),), (("factor", 1.6),)),
    Template("sensor_stuck", "lid.lower", "lid_up", ("lid.sensor_conflict",),
             (("lid.sensor_conflict", "replace_part", "lid.lower"),), (("value", True),)),
    Template("sensor_stuck", "case_open", "play", ("case.opened",),
             (("case.opened", "replace_part", "case_open"),), (("value", True),)),
    Template("sensor_flaky", "lid.upper", "build", ("lid.sensor_conflict",),
             (("lid.sensor_conflict", "replace_part", "lid.upper"),),
             (("probability", 0.5),)),
    Template("lid_blocked", "lid", "lid_down", ("lid.not_lowering",),
             (("lid.not_lowering", "clear_obstruction", None),)),
    Template("plate_blocked", "side.{s}.plate", "raise", ("plate.stuck",),
             (("plate.stuck", "clear_obstruction", "side.{s}.plate"),)),
    Template("dice_jam", "dice", "raise", ("dice.stuck",),
             (("dice.stuck", "clear_jam", None),)),
    Template("power_cut", "power", "play", ("power.recovered",),
             (("power.recovered", "refeed", None),), (("duration_s", 30.0),)),
    Template("power_cut", "power", None, ("power.recovered",),
             (("power.recovered", "refeed", None),), (("duration_s", 5.0),), at_s=10.0),
)
# Faults a fault of one kind may bring along (a stopped build drifts, for instance).
ALLOW = ("timing.drift", "build.slow", "sensor.degraded", "tile.face_up", "power.recovered")


def random_scenario(cycles: int, every: int, seed: int,
                    templates: tuple[Template, ...] = TEMPLATES) -> Scenario:
    """`cycles` cycles with a random fault every ~`every` cycles (never in cycle 1)."""
    rng = random.Random(f"soak-{seed}")
    faults: list[FaultSpec] = []
    actions: list[ActionSpec] = []
    expect: list[str] = []
    allow = set(ALLOW)
    cycle = 1 + rng.randint(1, every)
    while cycle <= cycles:
        t = rng.choice(templates)
        fill = {"s": rng.randrange(REFERENCE.side_count), "set": rng.choice(REFERENCE.sets)}
        faults.append(FaultSpec(kind=t.kind, where=t.where.format(**fill), cycle=cycle,
                                phase=t.phase, at_s=t.at_s, **dict(t.fields)))
        for after, do, where in t.actions:
            actions.append(ActionSpec(after, do, where.format(**fill) if where else None))
        expect.extend(t.expect)
        allow.update(t.allow)
        # Leave a few cycles between faults so each one is seen, fixed and recovered.
        cycle += max(2, rng.randint(every // 2, every + every // 2))
    return Scenario(seed=seed, cycles=cycles, faults=tuple(faults), actions=tuple(actions),
                    expect=Expect(tuple(sorted(set(expect))), tuple(sorted(allow))),
                    source=f"<soak seed {seed}>")
