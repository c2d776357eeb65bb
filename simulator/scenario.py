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

[expect]
faults = ["head.jam"]               # must be raised
allow = ["timing.drift"]            # may be raised
cycles_completed = 4
```

Every key is checked: a typo is an error naming the file and the key, never ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from core.config import reference_config
from core.schema import read_toml
from firmware.faults import CATALOGUE

# The example scenarios are package data (tests/scenarios in the source tree).
EXAMPLES = "simulator.scenarios"

PHASES = ("build", "lid_down", "lid_up", "raise", "dice", "play")
# Not a phase of the cycle: `at_s` after the first stop-fault raised from the cycle's
# first phase on (a power cut while a fault is active, or a technician on the way).
AFTER_FAULT = "fault"
ACTIONS = ("clear_jam", "replace_tile", "clear_obstruction", "clean_sensor", "replace_part",
           "top_up", "remove_extra", "clear_fault", "refeed")
SIDE = r"side\.[0-3]"
# Which places each kind of fault can be put at.
KINDS: dict[str, str] = {
    "tile_jam": rf"{SIDE}\.(head|conveyor)",
    "weak_magnet_tile": r"set\.[AB]",
    "dead_magnet_tile": r"set\.[AB]",
    "missing_tiles": r"table",
    "extra_tiles": r"hole",
    "motor_dead": r"motor\.(lid|disc|ring|dice|side\.[0-3]\.(conveyor|head|plate))",
    "motor_slow": r"motor\.(lid|disc|ring|side\.[0-3]\.(conveyor|head|plate))",
    "sensor_stuck": rf"lid\.(upper|lower)|dice\.spin|case_open|{SIDE}\."
                    r"(count|full|head_home|plate_home|face_up)",
    "sensor_dirty": rf"{SIDE}\.count",
    "sensor_flaky": rf"lid\.(upper|lower)|{SIDE}\.(count|full|head_home|plate_home)",
    "lid_blocked": r"motor\.lid|lid",
    "plate_blocked": rf"{SIDE}\.plate",
    "dice_jam": r"motor\.dice|dice",
    "power_cut": r"power",
    "link_noise": r"link",
    "link_drop": r"link",
}
FAULT_KEYS = {"kind", "where", "cycle", "phase", "at_s", "tile", "count", "probability",
              "factor", "value", "duration_s", "mode"}
ACTION_KEYS = {"after_fault", "do", "where", "delay_s"}
EXPECT_KEYS = {"faults", "allow", "cycles_completed"}
TOP_KEYS = {"seed", "cycles", "config", "play_time_s", "fault", "action", "expect"}


class ScenarioError(ValueError):
    """A scenario file that cannot be run; the message names the file and the key."""


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    where: str
    cycle: int
    phase: str | None = None
    at_s: float | None = None
    tile: str | None = None
    count: int = 1
    probability: float = 0.0
    factor: float = 1.0
    value: bool = False
    duration_s: float = 5.0
    mode: str = "both"

    @property
    def side(self) -> int | None:
        match = re.match(r"side\.([0-3])", self.where)
        return int(match.group(1)) if match else None


@dataclass(frozen=True)
class ActionSpec:
    after_fault: str
    do: str
    where: str | None = None
    delay_s: float = 20.0


@dataclass(frozen=True)
class Expect:
    faults: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    cycles_completed: int | None = None


@dataclass(frozen=True)
class Scenario:
    seed: int = 1
    cycles: int = 3
    config: str | None = None
    faults: tuple[FaultSpec, ...] = ()
    actions: tuple[ActionSpec, ...] = ()
    expect: Expect = field(default_factory=Expect)
    source: str = "<inline>"
    play_time_s: float | None = None

    @property
    def needs_link(self) -> bool:
        return any(f.kind.startswith("link_") for f in self.faults)


def _fail(file: str, where: str, problem: str) -> ScenarioError:
    return ScenarioError(f"{file}: {where}: {problem}")


def _typed(file: str, where: str, raw: dict[str, Any], key: str, kind: type,
           default: Any = None, required: bool = False) -> Any:
    if key not in raw:
        if required:
            raise _fail(file, where, f"{key} is missing")
        return default
    value = raw[key]
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise _fail(file, where, f"{key} = {value!r}: expected {kind.__name__}")
    return value


def _unknown(file: str, where: str, raw: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        valid = ", ".join(sorted(allowed))
        raise _fail(file, where, f"unknown key {unknown[0]!r} (valid: {valid})")


def _table(file: str, where: str, raw: Any, allowed: set[str]) -> None:
    """`raw` is a TOML table holding only `allowed` keys."""
    if not isinstance(raw, dict):
        raise _fail(file, where, "must be a table")
    _unknown(file, where, raw, allowed)


def _fault(file: str, i: int, raw: Any) -> FaultSpec:
    where = f"[[fault]] #{i + 1}"
    _table(file, where, raw, FAULT_KEYS)
    kind = _typed(file, where, raw, "kind", str, required=True)
    if kind not in KINDS:
        raise _fail(file, where, f"kind {kind!r} is not one of {', '.join(KINDS)}")
    place = _typed(file, where, raw, "where", str, required=True)
    if not re.fullmatch(KINDS[kind], place):
        raise _fail(file, where, f"where {place!r} does not fit {kind} "
                                 f"(expected a name matching {KINDS[kind]})")
    cycle = _typed(file, where, raw, "cycle", int, required=True)
    if cycle < 1:
        raise _fail(file, where, f"cycle = {cycle}: cycles count from 1")
    phase = _typed(file, where, raw, "phase", str)
    at_s = _typed(file, where, raw, "at_s", float)
    if (phase is None) == (at_s is None) and phase != AFTER_FAULT:
        raise _fail(file, where, f"give exactly one of phase or at_s (both only with "
                                 f"phase = {AFTER_FAULT!r})")
    if phase is not None and phase not in (*PHASES, AFTER_FAULT):
        raise _fail(file, where, f"phase {phase!r} is not one of "
                                 f"{', '.join((*PHASES, AFTER_FAULT))}")
    if at_s is not None and at_s < 0:
        raise _fail(file, where, f"at_s = {at_s}: must not be negative")
    spec = FaultSpec(
        kind=kind, where=place, cycle=cycle, phase=phase, at_s=at_s,
        tile=_typed(file, where, raw, "tile", str),
        count=_typed(file, where, raw, "count", int, 1),
        probability=_typed(file, where, raw, "probability", float, 0.0),
        factor=_typed(file, where, raw, "factor", float, 1.0),
        value=_typed(file, where, raw, "value", bool, False),
        duration_s=_typed(file, where, raw, "duration_s", float, 5.0),
        mode=_typed(file, where, raw, "mode", str, "both"))
    _check_kind(file, where, spec)
    return spec


def _check_kind(file: str, where: str, spec: FaultSpec) -> None:
    from simulator.tiles import set_codes

    magnet = spec.kind in ("weak_magnet_tile", "dead_magnet_tile")
    if magnet and (spec.tile is None or spec.tile not in set_codes(144)):
        raise _fail(file, where, f"tile = {spec.tile!r}: give a tile code such as B5")
    if spec.kind in ("missing_tiles", "extra_tiles") and not 1 <= spec.count <= 20:
        raise _fail(file, where, f"count = {spec.count}: from 1 to 20")
    flaky = spec.kind == "sensor_flaky"
    if spec.kind in ("sensor_dirty", "sensor_flaky", "link_noise") and not (
            0 < spec.probability <= (50.0 if flaky else 1.0)):
        unit = "pulses per second, at most 50" if flaky else "at most 1"
        raise _fail(file, where, f"probability = {spec.probability}: above 0 ({unit})")
    if spec.kind == "sensor_dirty" and spec.mode not in ("miss", "double", "both"):
        raise _fail(file, where, f"mode = {spec.mode!r}: one of miss, double, both")
    if spec.kind == "motor_slow" and not 1.0 < spec.factor <= 20.0:
        raise _fail(file, where, f"factor = {spec.factor}: above 1 and at most 20")
    if spec.kind in ("power_cut", "link_drop") and not 0 < spec.duration_s <= 3600:
        raise _fail(file, where, f"duration_s = {spec.duration_s}: above 0, at most 3600")


def _action(file: str, i: int, raw: Any) -> ActionSpec:
    where = f"[[action]] #{i + 1}"
    _table(file, where, raw, ACTION_KEYS)
    after = _typed(file, where, raw, "after_fault", str, required=True)
    if after not in CATALOGUE:
        raise _fail(file, where, f"after_fault {after!r} is not a fault id (docs/mechanics.md)")
    do = _typed(file, where, raw, "do", str, required=True)
    if do not in ACTIONS:
        raise _fail(file, where, f"do {do!r} is not one of {', '.join(ACTIONS)}")
    delay = _typed(file, where, raw, "delay_s", float, 20.0)
    if not 0 <= delay <= 3600:
        raise _fail(file, where, f"delay_s = {delay}: from 0 to 3600")
    return ActionSpec(after, do, _typed(file, where, raw, "where", str), delay)


def _expect(file: str, raw: Any) -> Expect:
    _table(file, "[expect]", raw, EXPECT_KEYS)
    lists = {}
    for key in ("faults", "allow"):
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _fail(file, "[expect]", f"{key} must be a list of fault ids")
        for fault_id in value:
            if fault_id not in CATALOGUE:
                raise _fail(file, "[expect]", f"{key}: {fault_id!r} is not a fault id")
        lists[key] = tuple(value)
    cycles = _typed(file, "[expect]", raw, "cycles_completed", int)
    return Expect(lists["faults"], lists["allow"], cycles)


def parse_scenario(raw: dict[str, Any], file: str) -> Scenario:
    _unknown(file, "top level", raw, TOP_KEYS)
    seed = _typed(file, "top level", raw, "seed", int, 1)
    cycles = _typed(file, "top level", raw, "cycles", int, 3)
    if not 1 <= cycles <= 100_000:
        raise _fail(file, "top level", f"cycles = {cycles}: from 1 to 100000")
    config = _typed(file, "top level", raw, "config", str)
    play = _typed(file, "top level", raw, "play_time_s", float)
    if play is not None and not 1.0 <= play <= 3600.0:
        raise _fail(file, "top level", f"play_time_s = {play}: from 1 to 3600")
    if config is not None:
        config = _config_path(file, config)
    faults = raw.get("fault", [])
    actions = raw.get("action", [])
    if not isinstance(faults, list) or not isinstance(actions, list):
        raise _fail(file, "top level", "fault and action must be arrays of tables "
                                       "([[fault]], [[action]])")
    specs = tuple(_fault(file, i, f) for i, f in enumerate(faults))
    for spec in specs:
        if spec.cycle > cycles:
            raise _fail(file, "[[fault]]", f"cycle {spec.cycle} is after the last cycle {cycles}")
    return Scenario(seed, cycles, config, specs,
                    tuple(_action(file, i, a) for i, a in enumerate(actions)),
                    _expect(file, raw.get("expect", {})), file, play)


def _config_path(file: str, name: str) -> str:
    """A scenario's config: a path from the scenario's folder, else a reference config
    by file name (table.toml, table-136.toml, table-pi.toml)."""
    beside = Path(file).parent / name
    if beside.is_file():
        return str(beside)
    reference = reference_config(Path(name).name)
    if reference.is_file():
        return str(reference)
    raise _fail(file, "top level", f"config {name!r}: no such file beside the scenario, "
                                   f"nor a reference config of that name")


def example_scenarios() -> list[Path]:
    """The example scenario files shipped with the package, sorted by name."""
    folder = Path(str(resources.files(EXAMPLES)))
    return sorted(folder.glob("*.toml"))


def load_scenario(path: str | Path) -> Scenario:
    try:
        raw = read_toml(Path(path))
    except Exception as exc:      # ConfigError: unreadable or not TOML
        raise ScenarioError(str(exc)) from None
    return parse_scenario(raw, str(path))
