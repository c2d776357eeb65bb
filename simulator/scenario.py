"""Scenario files: which faults to inject, what the technician does, what to expect.

```toml
seed = 3
cycles = 4
config = "table-136.toml"           # optional: a reference config, or a path from this file
play_time_s = 20.0                  # optional: how long players take over a hand

[[fault]]
kind = "tile_jam"                   # docs/mechanics.md, Faults the simulator injects
where = "side.2.head"               # a part or signal name
cycle = 2                           # 1-based: the cycle whose hand this set is dealt for
phase = "build"                     # build, lid_down, lid_up, raise, dice, play — or at_s
                                    # (from the build's start); "fault": at_s (default 0)
                                    # after the first stop-fault from that cycle on

[[action]]
after_fault = "head.jam"            # a fault id (docs/mechanics.md, Fault catalogue)
do = "clear_jam"
where = "side.2.head"
for_fault = 1                       # optional: only for what [[fault]] #1 causes

[expect]
faults = ["head.jam"]               # must be raised
allow = ["timing.drift"]            # may be raised
cycles_completed = 4
```

Every key is checked: a typo is an error naming the file and the key, never ignored.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import reference_config
from mjtable_core.geometry import REFERENCE
from mjtable_core.i18n import N_, _
from mjtable_core.packagedata import data_folder
from mjtable_core.schema import ConfigError, Invalid, load_section, option, read_toml

# The example scenarios are package data (tests/scenarios in the source tree).
EXAMPLES = "simulator.scenarios"

PHASES = ("build", "lid_down", "lid_up", "raise", "dice", "play")
# Not a phase of the cycle: `at_s` after the first stop-fault raised from the cycle's
# first phase on (a power cut while a fault is active, or a technician on the way).
AFTER_FAULT = "fault"
ACTIONS = ("clear_jam", "replace_tile", "clear_obstruction", "clean_sensor", "replace_part",
           "top_up", "remove_extra", "clear_fault", "refeed")
# Scenarios are written for the reference table (docs/design.md, Geometry): its sides
# and sets, from the one place they live.
SIDE = rf"side\.({'|'.join(map(str, REFERENCE.sides))})"
SET = rf"set\.({'|'.join(map(re.escape, REFERENCE.sets))})"
# Which places each kind of fault can be put at.
KINDS: dict[str, str] = {
    "tile_jam": rf"{SIDE}\.(head|conveyor)",
    "weak_magnet_tile": SET,
    "dead_magnet_tile": SET,
    "missing_tiles": r"table",
    "extra_tiles": r"hole",
    "motor_dead": rf"motor\.(lid|disc|ring|dice|{SIDE}\.(conveyor|head|plate))",
    "motor_slow": rf"motor\.(lid|disc|ring|{SIDE}\.(conveyor|head|plate))",
    "sensor_stuck": rf"lid\.(upper|lower)|dice\.spin|case_open(_nc)?|{SIDE}\."
                    r"(count|full|head_home|plate_home|face_up)",
    "sensor_dirty": rf"{SIDE}\.count",
    "sensor_flaky": rf"lid\.(upper|lower)|{SIDE}\.(count|full|head_home|plate_home)",
    "lid_blocked": r"motor\.lid|lid",
    "plate_blocked": rf"{SIDE}\.plate",
    "dice_jam": r"motor\.dice|dice",
    "power_cut": r"power",
    "link_noise": r"link",
    "link_drop": r"link",
    # The host process freezes (GC, a blocked fsync, API floods): at once ("host"), or
    # just before that mechanism's next stop, the worst instant for a loop-made stop.
    "host_stall": rf"host|lid|{SIDE}\.(head|plate)",
}
# What a technician can clean: the sensors.
SENSORS = KINDS["sensor_stuck"]
# What a technician can replace: a motor, a sensor, or the board's cable.
PARTS = rf"{KINDS['motor_dead']}|{SENSORS}|link"


def check_for_table(scenario: Scenario, tiles: int, signals: Collection[str]) -> None:
    """The scenario fits the table it runs on: a magnet fault's tile is in its sets
    (a 136-tile table has no flowers), a sensor fault's sensor is fitted (not every
    table has face-up sensors). Raises ScenarioError naming the fault."""
    from simulator.physics.tiles import set_codes

    for i, spec in enumerate(scenario.faults, start=1):
        if spec.kind.startswith("sensor_") and spec.where not in signals:
            raise ScenarioError(scenario.source, f"fault #{i}", "where", _(
                "{where!r}: this table has no such sensor").format(where=spec.where))
        if spec.tile is not None and spec.tile not in set_codes(tiles):
            raise ScenarioError(scenario.source, f"fault #{i}", "tile", _(
                "{tile!r}: not a tile of this {tiles}-tile table").format(
                    tile=spec.tile, tiles=tiles))


# The faults that say each kind was found: a report counts a kind as detected only by
# one of these, at its side (any fault raised later proves nothing about it).
_STARVED = ("count.blind", "build.slow", "build.tiles_missing")
DETECTED_BY: dict[str, frozenset[str]] = {kind: frozenset(ids) for kind, ids in {
    "tile_jam": ("head.jam", *_STARVED),
    "weak_magnet_tile": ("tile.face_up", *_STARVED),
    "dead_magnet_tile": ("tile.face_up", *_STARVED),
    "missing_tiles": ("build.tiles_missing", "build.slow"),
    "extra_tiles": ("build.extra_tiles",),
    "motor_dead": ("lid.not_rising", "lid.not_lowering", "head.jam", "plate.stuck",
                   "dice.stuck", *_STARVED),
    "motor_slow": ("timing.drift", "lid.not_rising", "lid.not_lowering", "head.jam",
                   "plate.stuck", *_STARVED),
    "sensor_stuck": ("lid.sensor_conflict", "lid.not_rising", "lid.not_lowering",
                     "sensor.degraded", "head.jam", "plate.stuck", "count.double",
                     "count.blind", "tile.face_up", "dice.stuck", "case.opened",
                     "build.tiles_missing", "build.extra_tiles"),
    "sensor_dirty": ("count.double", "build.tiles_missing", "build.extra_tiles",
                     *_STARVED),
    "sensor_flaky": ("lid.sensor_conflict", "lid.not_rising", "lid.not_lowering",
                     "sensor.degraded", "sensor.flaky", "head.jam", "plate.stuck", "count.double",
                     "count.blind", "build.extra_tiles"),
    "lid_blocked": ("lid.not_lowering", "lid.not_rising"),
    "plate_blocked": ("plate.stuck",),
    "dice_jam": ("dice.stuck",),
    "power_cut": ("power.recovered", "build.interrupted"),
    # A link back clears link.lost by itself; a set half built meanwhile is held.
    "link_noise": ("link.lost", "build.interrupted"),
    "link_drop": ("link.lost", "build.interrupted"),
    # A stall longer than the board's limit ends in its failsafe: a lost link.
    "host_stall": ("link.lost", "build.interrupted"),
}.items()}
# Allowed values too many to list: the message names the catalogue instead.
FAULT_ID = N_("a fault id (docs/faults.md)")


class ScenarioError(ConfigError, ValueError):
    """A scenario file that cannot be run; the message names the file, the table
    (`[[fault]] #2`, `[expect]`) and the key."""


@dataclass(frozen=True)
class FaultSpec:
    """One `[[fault]]`: what to break, where, and when."""

    kind: str = option(choices=tuple(KINDS), doc="docs/mechanics.md, injectable faults")
    where: str = option(doc="a part or signal name that fits the kind (KINDS)")
    cycle: int = option(minval=1, doc="1-based: the cycle whose hand this set is dealt for")
    phase: str | None = option(None, choices=(*PHASES, AFTER_FAULT))
    at_s: float | None = option(None, minval=0.0)
    tile: str | None = option(None, doc="the tile code of a magnet fault")
    count: int = option(1)
    probability: float = option(0.0)
    factor: float = option(1.0)
    value: bool = option(False)
    duration_s: float = option(5.0)
    mode: str = option("both")

    @property
    def side(self) -> int | None:
        match = re.match(SIDE, self.where)
        return int(match.group(1)) if match else None

    def check(self) -> None:
        """The place fits the kind, exactly one time is given, and each kind's own
        options are in their range."""
        if not re.fullmatch(KINDS[self.kind], self.where):
            raise Invalid("where", _("{where!r} does not fit {kind} (expected a name "
                                     "matching {pattern})").format(
                where=self.where, kind=self.kind, pattern=KINDS[self.kind]))
        if (self.phase is None) == (self.at_s is None) and self.phase != AFTER_FAULT:
            raise Invalid("phase", _("give exactly one of phase or at_s (both only with "
                                     "phase = {fault!r})").format(fault=AFTER_FAULT))
        _check_kind(self)


def _check_kind(spec: FaultSpec) -> None:
    from simulator.physics.tiles import set_codes

    magnet = spec.kind in ("weak_magnet_tile", "dead_magnet_tile")
    if magnet and (spec.tile is None or spec.tile not in set_codes(REFERENCE.tiles)):
        raise Invalid("tile", _("{tile!r}: give a tile code such as B5").format(tile=spec.tile))
    if spec.kind in ("missing_tiles", "extra_tiles") and not 1 <= spec.count <= 20:
        raise Invalid("count", _("{count}: from 1 to 20").format(count=spec.count))
    flaky = spec.kind == "sensor_flaky"
    if spec.kind in ("sensor_dirty", "sensor_flaky", "link_noise") and not (
            0 < spec.probability <= (50.0 if flaky else 1.0)):
        unit = _("pulses per second, at most 50") if flaky else _("at most 1")
        raise Invalid("probability", _("{probability}: above 0 ({unit})").format(
            probability=spec.probability, unit=unit))
    if spec.kind == "sensor_dirty" and spec.mode not in ("miss", "double", "both"):
        raise Invalid("mode", _("{mode!r}: one of miss, double, both").format(mode=spec.mode))
    if spec.kind == "motor_slow" and not 1.0 < spec.factor <= 20.0:
        raise Invalid("factor", _("{factor}: above 1 and at most 20").format(
            factor=spec.factor))
    if spec.kind == "host_stall" and not 0 < spec.duration_s <= 60:
        raise Invalid("duration_s", _("{duration}: above 0, at most 60").format(
            duration=spec.duration_s))
    if spec.kind in ("power_cut", "link_drop") and not 0 < spec.duration_s <= 3600:
        raise Invalid("duration_s", _("{duration}: above 0, at most 3600").format(
            duration=spec.duration_s))


@dataclass(frozen=True)
class ActionSpec:
    """One `[[action]]`: what the technician does after a fault, and where.

    `for_fault` (1-based) names the `[[fault]]` it was planned for: it then answers
    only a fault that injection may have caused (injected before it, at its side), never
    the same fault id raised by another injection. Without it, the first fault of that
    id takes it."""

    after_fault: str = option(choices=CATALOGUE, shown=FAULT_ID)
    do: str = option(choices=ACTIONS)
    where: str | None = option(None)
    delay_s: float = option(20.0, minval=0.0, maxval=3600.0)
    for_fault: int | None = option(None, minval=1, doc="the [[fault]] it answers, from 1")


@dataclass(frozen=True)
class Expect:
    """`[expect]`: faults that must be raised, faults that may be, cycles to finish."""

    faults: tuple[str, ...] = option((), choices=CATALOGUE, shown=FAULT_ID)
    allow: tuple[str, ...] = option((), choices=CATALOGUE, shown=FAULT_ID)
    cycles_completed: int | None = option(None, minval=0)


@dataclass(frozen=True)
class Scenario:
    """A whole scenario file (its top level)."""

    seed: int = option(1)
    cycles: int = option(3, minval=1, maxval=100_000)
    config: str | None = option(None, doc="a reference config, or a path from this file")
    faults: tuple[FaultSpec, ...] = option((), key="fault")
    actions: tuple[ActionSpec, ...] = option((), key="action")
    expect: Expect = field(default_factory=Expect)
    source: str = "<inline>"
    play_time_s: float | None = option(None, minval=1.0, maxval=3600.0)

    @property
    def needs_link(self) -> bool:
        return any(f.kind.startswith("link_") for f in self.faults)

    def check(self) -> None:
        for i, spec in enumerate(self.faults, start=1):
            if spec.cycle > self.cycles:
                raise Invalid("cycle", _("cycle {cycle} is after the last cycle {last}").format(
                    cycle=spec.cycle, last=self.cycles), f"fault #{i}")
        for i, action in enumerate(self.actions, start=1):
            if action.do == "clean_sensor" and not re.fullmatch(SENSORS, action.where or ""):
                raise Invalid("where", _("{where!r}: clean_sensor needs a sensor (a name "
                                         "matching {pattern})").format(
                    where=action.where, pattern=SENSORS), f"action #{i}")
            if action.do == "replace_part" and not re.fullmatch(PARTS, action.where or ""):
                raise Invalid("where", _("{where!r}: replace_part needs a part (a name "
                                         "matching {pattern})").format(
                    where=action.where, pattern=PARTS), f"action #{i}")
            if action.for_fault is not None and action.for_fault > len(self.faults):
                raise Invalid("for_fault", _("{number}: there are {count} [[fault]] tables").format(
                    number=action.for_fault, count=len(self.faults)), f"action #{i}")


def parse_scenario(raw: dict[str, Any], file: str) -> Scenario:
    """Build and check a Scenario from parsed TOML (`file` names it in errors)."""
    try:
        scenario = load_section(Scenario, raw, file, None, source=file)
    except ScenarioError:
        raise
    except ConfigError as exc:
        raise ScenarioError(exc.file, exc.section, exc.key, exc.problem) from None
    if scenario.config is not None:
        scenario = dataclasses.replace(scenario, config=_config_path(file, scenario.config))
    return scenario


def _config_path(file: str, name: str) -> str:
    """A scenario's config: a path from the scenario's folder, else a reference config
    by file name (table.toml, table-136.toml, table-pi.toml)."""
    beside = Path(file).parent / name
    if beside.is_file():
        return str(beside)
    reference = reference_config(Path(name).name)
    if reference.is_file():
        return str(reference)
    raise ScenarioError(file, None, "config", _("{name!r}: no such file beside the scenario, "
                                                "nor a reference config of that name").format(
                                                    name=name))


def example_scenarios() -> list[Path]:
    """The example scenario files shipped with the package, sorted by name."""
    folder = data_folder(EXAMPLES, "tests/scenarios")
    return sorted(folder.glob("*.toml"))


def scenario_path(name: str | Path) -> Path:
    """A scenario file by path, or a packaged one by its name (`head_jam`, or
    `head_jam.toml`) when no such file exists here: an install has no tests/ folder."""
    path = Path(name)
    if path.exists() or len(path.parts) != 1:
        return path
    packaged = data_folder(EXAMPLES, "tests/scenarios") / (path.name if path.suffix == ".toml"
                                       else f"{path.name}.toml")
    return packaged if packaged.is_file() else path


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file (a path, or the name of a packaged one)."""
    path = scenario_path(path)
    try:
        raw = read_toml(Path(path))
    except ConfigError as exc:      # unreadable or not TOML
        raise ScenarioError(exc.file, exc.section, exc.key, exc.problem) from None
    return parse_scenario(raw, str(path))
