"""`mjtable fuzz`: random fault scenarios, judged by the referee, minimised on failure.

Each run draws 1–3 faults of any kind at any valid place, phase or time (power cuts
included, also during another fault or while a technician works), and for each the
right technician action, a wrong one or none. A run fails in one or more classes:

- `violations`: the referee saw a physical invariant broken (simulator/harness/referee.py);
- `stalls`: the table stopped making progress (simulator/harness/watchdog.py);
- `crashes`: the firmware or the model raised an exception;
- `timeouts`: the run took longer than its wall-time limit;
- `wrong_handoffs`: walls handed off that do not stand on the table;
- `tiles_not_accounted`: a tile is in two places or none;
- `wrong_fault`: a fault the scenario says must be raised (a head jam injected
  during a build, say) was not raised, or not at the injected side;
- `wrong_diagnosis`, `fault_flood`, `stale_display`: what a technician sees, for a
  lone motor or sensor fault (simulator/harness/diagnosis_judge.py): the broken part not named
  among the ranked causes (first, or with the test that tells them apart); more than 3
  faults an hour from it, or two active copies of one fault; a display still showing
  a fault once it is cleared;
- `hand_lost`: a run whose faults are all recoverable without a technician (host
  stalls) that did not deal every hand it was asked for, or raised an error;
- `misnamed_first`: a lone flickering sensor named, but not first (its own edges are
  the evidence: nothing else can rank above it).

The generator also draws what the table must heal from by itself: host stalls of
0.6–5 s (past the board's link limit) in every phase and on both rigs, flaky sensors
at low rates (0.01–0.1 glitches a second, a ghost now and then), and pairs of faults
at two different sides in one cycle.

`wide` (`mjtable fuzz --wide`) draws what a gentle generator never does: technicians
arriving up to an hour late, flaky sensors up to 10 pulses a second, motors up to 8
times slow, up to 20 extra or missing tiles, and repairs at the wrong side or of the
wrong part.

A wrong or missing technician action that leaves the table halted and safe passes.
Every failure is shrunk (faults and actions dropped, cycles moved earlier) while it
still fails in the same class, and written as a TOML scenario that reproduces it.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import Config, reference_config
from mjtable_core.geometry import REFERENCE
from simulator.harness.diagnosis_judge import failed as judged_failures
from simulator.harness.diagnosis_judge import judge as judge_diagnosis
from simulator.physics.tiles import set_codes
from simulator.rigs.rig import RIGS
from simulator.scenario import AFTER_FAULT, PHASES, ActionSpec, Expect, FaultSpec, Scenario

CLASSES = ("violations", "stalls", "crashes", "timeouts", "wrong_handoffs",
           "tiles_not_accounted", "wrong_fault", "wrong_diagnosis", "fault_flood",
           "stale_display", "hand_lost", "misnamed_first")
FUZZ_PLAY_TIME_S = 20.0     # short hands: many scenarios per second
_SIDE_SENSORS = ("count", "full", "head_home", "plate_home")

# Where each kind of fault can go (simulator/scenario.py KINDS, spelled out), on the
# reference table the fuzz runs.
PLACES: dict[str, list[str]] = {
    "tile_jam": [f"side.{n}.{p}" for n in REFERENCE.sides for p in ("head", "conveyor")],
    "weak_magnet_tile": [f"set.{s}" for s in REFERENCE.sets],
    "dead_magnet_tile": [f"set.{s}" for s in REFERENCE.sets],
    "missing_tiles": ["table"],
    "extra_tiles": ["hole"],
    "motor_dead": ["motor.lid", "motor.disc", "motor.ring", "motor.dice",
                   *[f"motor.side.{n}.{m}" for n in REFERENCE.sides
                     for m in ("conveyor", "head", "plate")]],
    "motor_slow": ["motor.lid", "motor.disc", "motor.ring",
                   *[f"motor.side.{n}.{m}" for n in REFERENCE.sides
                     for m in ("conveyor", "head", "plate")]],
    "sensor_stuck": ["lid.upper", "lid.lower", "dice.spin", "case_open",
                     *[f"side.{n}.{s}" for n in REFERENCE.sides for s in _SIDE_SENSORS]],
    "sensor_dirty": [f"side.{n}.count" for n in REFERENCE.sides],
    "sensor_flaky": ["lid.upper", "lid.lower",
                     *[f"side.{n}.{s}" for n in REFERENCE.sides for s in _SIDE_SENSORS]],
    "lid_blocked": ["lid"],
    "plate_blocked": [f"side.{n}.plate" for n in REFERENCE.sides],
    "dice_jam": ["dice"],
    "power_cut": ["power"],
    "link_noise": ["link"],
    "link_drop": ["link"],
    "host_stall": ["host", "lid", *[f"side.{n}.{p}" for n in REFERENCE.sides
                                    for p in ("head", "plate")]],
}
# A host stall's lengths: a GC pause, a slow fsync, past the board's link limit.
STALLS_S = (0.05, 0.2, 1.0)
LONG_STALL_S = (0.6, 5.0)       # past the board's limit: the board holds, RESUME reads on
# Faults the table heals from without a technician: every hand is still dealt.
RECOVERABLE = ("host_stall",)
# Kinds that happen at one side, for pairs of faults at two different sides.
SIDE_KINDS = ("tile_jam", "sensor_flaky", "sensor_dirty", "plate_blocked", "motor_slow")
LINK_KINDS = ("link_noise", "link_drop")


def right_actions(spec: FaultSpec) -> list[ActionSpec]:
    """What a technician who reads the fault right does, for each fault it may raise."""
    kind, where = spec.kind, spec.where
    if kind == "tile_jam":
        fault = "head.jam" if where.endswith("head") else "count.blind"
        return [ActionSpec(fault, "clear_jam", where)]
    if kind in ("weak_magnet_tile", "dead_magnet_tile"):
        return [ActionSpec("build.tiles_missing", "replace_tile", where)]
    if kind == "missing_tiles":
        return [ActionSpec("build.tiles_missing", "top_up")]
    if kind == "extra_tiles":
        return [ActionSpec("build.extra_tiles", "remove_extra")]
    if kind in ("motor_dead", "motor_slow", "sensor_stuck", "sensor_flaky"):
        return [ActionSpec(f, "replace_part", where) for f in _raised_by(where)]
    if kind == "sensor_dirty":
        return [ActionSpec(f, "clean_sensor", where) for f in ("count.blind", "count.double")]
    if kind in ("lid_blocked", "plate_blocked"):
        fault = "lid.not_lowering" if kind == "lid_blocked" else "plate.stuck"
        return [ActionSpec(fault, "clear_obstruction", where)]
    if kind == "dice_jam":
        return [ActionSpec("dice.stuck", "clear_jam", where)]
    if kind == "power_cut":
        return [ActionSpec("power.recovered", "refeed")]
    # A lost link is mended by restarting the host, not by a technician's action
    # here: the table holding safe with link.lost active is the pass.
    return []


def _raised_by(where: str) -> list[str]:
    """The stop-faults a broken part at `where` may raise."""
    if where in ("motor.lid", "lid.upper", "lid.lower"):
        return ["lid.not_rising", "lid.not_lowering", "lid.sensor_conflict"]
    if where in ("motor.dice", "dice.spin"):
        return ["dice.stuck"]
    if where == "case_open":
        return ["case.opened"]
    if where.endswith(("plate", "plate_home")):
        return ["plate.stuck"]
    if where.endswith(("head", "head_home")):
        return ["head.jam", "count.blind"]
    return ["build.tiles_missing", "count.blind", "count.double"]


def wrong_action(rng: random.Random, spec: FaultSpec, wide: bool = False) -> ActionSpec:
    """A technician who mends the wrong thing (or only clears the fault); `wide`: also
    the right repair at the wrong side, or of the wrong part at the right side."""
    right = (right_actions(spec) or [ActionSpec("link.lost", "replace_part", "link")])[0]
    if wide and right.where and rng.random() < 0.5:
        return ActionSpec(right.after_fault, right.do, _elsewhere(rng, right.where))
    others = [do for do in ("clear_fault", "clean_sensor", "replace_tile", "clear_jam")
              if do != right.do]
    elsewhere = "side.0.count" if spec.where != "side.0.count" else "side.1.count"
    return ActionSpec(right.after_fault, rng.choice(others), elsewhere)


_NEIGHBOURS = {"head": "head_home", "head_home": "head", "plate": "plate_home",
               "plate_home": "plate", "count": "full", "full": "count",
               "conveyor": "count", "upper": "lower", "lower": "upper",
               "lid": "lid.upper", "disc": "ring", "ring": "disc"}


def _elsewhere(rng: random.Random, where: str) -> str:
    """The same repair at another side, or of the part next to it."""
    words = where.split(".")
    if "side" in words and rng.random() < 0.5:
        i = words.index("side") + 1
        sides = [str(n) for n in REFERENCE.sides if str(n) != words[i]]
        words[i] = rng.choice(sides)
        return ".".join(words)
    last = words[-1]
    neighbour = _NEIGHBOURS.get(last, last)
    if "." in neighbour:
        return neighbour        # a whole name: the lid motor's neighbour is its sensor
    if neighbour in ("head", "plate", "conveyor") and words[0] != "motor":
        return ".".join(["motor", *words[:-1], neighbour])
    if words[0] == "motor" and neighbour != last and "side" in words:
        return ".".join([*words[1:-1], neighbour])
    return ".".join([*words[:-1], neighbour])


def must_raise(spec: FaultSpec) -> str | None:
    """The fault that this injection surely raises, where the scenario can say so."""
    if spec.kind == "tile_jam" and spec.where.endswith("head") and spec.phase == "build":
        return "head.jam"
    if spec.kind == "plate_blocked" and spec.phase == "raise":
        return "plate.stuck"
    if spec.kind == "dice_jam" and spec.phase == "raise":
        return "dice.stuck"
    if spec.kind == "lid_blocked" and spec.phase == "lid_down":
        return "lid.not_lowering"
    if spec.kind == "sensor_stuck" and spec.where == "case_open" and spec.value:
        return "case.opened"
    return None


def _fault(rng: random.Random, kind: str, cycles: int,
           tiles: int = REFERENCE.tiles, wide: bool = False,
           healing: random.Random | None = None) -> FaultSpec:
    where = rng.choice(PLACES[kind])
    cycle = rng.randint(1, cycles)
    timed = rng.random() < 0.3
    phase = None if timed else rng.choice(PHASES)
    at_s = round(rng.uniform(0.0, 40.0), 1) if timed else None
    extra: dict[str, Any] = {}     # only the keys this kind reads
    if "magnet" in kind:
        extra["tile"] = rng.choice(sorted(set(set_codes(tiles))))   # no flowers in 136
    elif kind in ("missing_tiles", "extra_tiles"):
        extra["count"] = rng.randint(1, 20 if wide else 3)
    elif kind in ("sensor_dirty", "sensor_flaky", "link_noise"):
        high = (10.0 if wide else 2.0) if kind == "sensor_flaky" else 0.5
        extra["probability"] = round(rng.uniform(0.05, high), 2)
        if kind == "sensor_flaky" and healing is not None and healing.random() < 0.4:
            # A ghost now and then: a count sensor flickering once a minute or so.
            extra["probability"] = round(healing.uniform(0.01, 0.1), 3)
        if kind == "sensor_dirty":
            extra["mode"] = rng.choice(("miss", "double", "both"))
    elif kind == "motor_slow":
        extra["factor"] = round(rng.uniform(1.2, 8.0 if wide else 3.0), 2)
    elif kind == "sensor_stuck":
        extra["value"] = rng.random() < 0.5
    elif kind in ("power_cut", "link_drop"):
        extra["duration_s"] = round(rng.uniform(1.0, 60.0), 1)
    elif kind == "host_stall":
        extra["duration_s"] = rng.choice(STALLS_S) if rng.random() < 0.7 else round(
            rng.uniform(0.02, 2.0), 3)
        if healing is not None and healing.random() < 0.5:
            # Past the board's link limit: the board holds, RESUME reads on.
            extra["duration_s"] = round(healing.uniform(*LONG_STALL_S), 3)
    return FaultSpec(kind=kind, where=where, cycle=cycle, phase=phase, at_s=at_s, **extra)


def generate(seed: int, index: int, rig: str = "sim",
             tiles: int = REFERENCE.tiles, wide: bool = False,
             reader: bool = True) -> Scenario:
    """Scenario number `index` of the run seeded `seed` (the same on every machine),
    for a table with `tiles` tiles a set; `wide` draws the far ranges too; `reader`:
    the table reads its tiles."""
    rng = random.Random(f"fuzz-{seed}-{index}" + ("-wide" if wide else ""))
    # What the table must heal from by itself (long stalls, ghosts, pairs at two
    # sides) is drawn from its own stream: every other draw of a batch stays put.
    healing = random.Random(f"fuzz-heal-{seed}-{index}" + ("-wide" if wide else ""))
    kinds = [k for k in PLACES if rig in ("ioboard", "pico") or k not in LINK_KINDS]
    cycles = rng.randint(2, 3)
    faults = [_fault(rng, rng.choice(kinds), cycles, tiles, wide, healing)
              for _ in range(rng.randint(1, 3))]
    if healing.random() < 0.15:
        pair = _at_another_side(healing, faults[0], tiles, wide)
        if pair is not None:
            faults.append(pair)
    if not reader:
        faults = _no_count_neutral_swap(faults)
    if rng.random() < 0.2:
        # A power cut as another fault is injected, or while the first stop-fault of
        # its cycle is active (a technician comes 0–40 s after it: often on the way).
        other = faults[0]
        duration = round(rng.uniform(1.0, 30.0), 1)
        if rng.random() < 0.5:
            faults.append(FaultSpec("power_cut", "power", other.cycle, other.phase,
                                    other.at_s, duration_s=duration))
        else:
            faults.append(FaultSpec("power_cut", "power", other.cycle, AFTER_FAULT,
                                    round(rng.uniform(0.0, 40.0), 1), duration_s=duration))
    actions: list[ActionSpec] = []
    for n, spec in enumerate(faults, start=1):
        # Each action answers what its own injection causes (`for_fault`), never the
        # same fault id raised by another injection.
        choice = rng.random()
        if choice < 0.6:
            actions += [dataclasses.replace(a, delay_s=_delay(rng, wide), for_fault=n)
                        for a in right_actions(spec)]
        elif choice < 0.8:
            actions.append(dataclasses.replace(wrong_action(rng, spec, wide), for_fault=n))
    return Scenario(seed=rng.randrange(1 << 16), cycles=cycles, faults=tuple(faults),
                    actions=tuple(actions), expect=_expect(faults),
                    source=f"fuzz-{seed}-{index}", play_time_s=FUZZ_PLAY_TIME_S)


def _at_another_side(rng: random.Random, first: FaultSpec, tiles: int,
                     wide: bool) -> FaultSpec | None:
    """A second fault in the same cycle and phase as `first`, at another side."""
    if first.side is None:
        return None
    kind = rng.choice(SIDE_KINDS)
    places = [p for p in PLACES[kind] if f"side.{first.side}." not in p]
    spec = _fault(rng, kind, first.cycle, tiles, wide)
    return dataclasses.replace(spec, where=rng.choice(places), cycle=first.cycle,
                               phase=first.phase, at_s=first.at_s)


def _no_count_neutral_swap(faults: list[FaultSpec]) -> list[FaultSpec]:
    """Foreign tiles for as many missing ones in one cycle: a table that only counts its
    tiles cannot see that swap (docs/faults.md), so it is drawn one tile apart."""
    missing = {f.cycle: f.count for f in faults if f.kind == "missing_tiles"}
    return [dataclasses.replace(f, count=f.count + 1)
            if f.kind == "extra_tiles" and missing.get(f.cycle) == f.count else f
            for f in faults]


def _delay(rng: random.Random, wide: bool) -> float:
    """When the technician comes: within 40 s, or (`wide`) up to an hour late."""
    if wide and rng.random() < 0.3:
        return round(rng.uniform(40.0, 3600.0), 1)
    return round(rng.uniform(0.0, 40.0), 1)


def _expect(faults: list[FaultSpec] | tuple[FaultSpec, ...]) -> Expect:
    """Only the first fault's outcome is sure: without a power cut, and with every
    other fault in a later cycle (two in one raise: either may stop the table first)."""
    first = min(faults, key=lambda f: f.cycle)
    alone = all(f is first or f.cycle > first.cycle for f in faults)
    if any(f.kind == "power_cut" for f in faults) or not alone:
        return Expect(allow=tuple(sorted(CATALOGUE)), cycles_completed=0)
    sure = must_raise(first)
    return Expect(faults=(sure,) if sure else (), allow=tuple(sorted(CATALOGUE)),
                  cycles_completed=0)


# -- judging a run --------------------------------------------------------------------

def classify(scenario: Scenario, report: dict[str, Any]) -> list[str]:
    """The failure classes of one run (empty: it passed)."""
    classes = []
    if report["referee_violations"]:
        classes.append("violations")
    if report["stalls"]:
        classes.append("stalls")
    if report["crashed"] is not None:
        classes.append("crashes")
    if report["timed_out"]:
        classes.append("timeouts")
    if report["wrong_handoffs"]:
        classes.append("wrong_handoffs")
    if not report["tiles_accounted"]:
        classes.append("tiles_not_accounted")
    if report["crashed"] is None and not report["timed_out"] and _wrong_fault(scenario, report):
        classes.append("wrong_fault")
    if report["crashed"] is None and not report["timed_out"] and len(scenario.faults) == 1:
        # A lone fault only: another may not have been injected before the run ended.
        judgement = judge_diagnosis(report)
        classes += judged_failures(judgement)
        if (judgement is not None and judgement["kind"] == "sensor_flaky"
                and judgement["verdict"] == "among"):
            classes.append("misnamed_first")
    if report["crashed"] is None and not report["timed_out"] and _hand_lost(scenario, report):
        classes.append("hand_lost")
    return classes


def _hand_lost(scenario: Scenario, report: dict[str, Any]) -> bool:
    """Only faults the table heals from by itself, and still a hand not dealt (or an
    error a technician would have to clear)."""
    if not scenario.faults or any(f.kind not in RECOVERABLE for f in scenario.faults):
        return False
    errors = [f for f in report["faults"] if CATALOGUE[f["id"]].severity == "E"]
    return bool(errors) or report["cycles_completed"] < scenario.cycles


def _wrong_fault(scenario: Scenario, report: dict[str, Any]) -> bool:
    for fault_id in scenario.expect.faults:
        raised = [f for f in report["faults"] if f["id"] == fault_id]
        if not raised:
            return True
        spec = next(s for s in scenario.faults if must_raise(s) == fault_id)
        if spec.side is not None and not any(
                str(f["where"]).startswith(f"side.{spec.side}.") for f in raised):
            return True
    return False


Runner = Callable[[Scenario, float], dict[str, Any]]


class ConfigRunner:
    """Runs a scenario on one rig with one config; the fuzzer reads the config too
    (the tiles a set, and the file a failure's scenario names to reproduce it)."""

    def __init__(self, config: Config, rig: str) -> None:
        self.config = config
        self.rig = rig

    def __call__(self, scenario: Scenario, wall_limit_s: float) -> dict[str, Any]:
        from simulator.harness.runner import Harness

        return Harness(self.config, scenario, rig=self.rig).run(wall_limit_s=wall_limit_s)


def sim_runner(config: Config) -> Runner:
    return ConfigRunner(config, "sim")


def ioboard_runner(config: Config) -> Runner:
    return ConfigRunner(config, "ioboard")


def _config_file(config: Config | None) -> str | None:
    """The config as a scenario file names it: a reference config by its name, any
    other file by its full path (docs/faults.md: how to reproduce a failure)."""
    if config is None or not Path(config.source).is_file():
        return None
    source = Path(config.source).resolve()
    if reference_config(source.name).resolve() == source:
        return source.name
    return str(source)


def judge(run: Runner, scenario: Scenario, wall_limit_s: float) -> list[str]:
    return classify(scenario, run(scenario, wall_limit_s))


# -- shrinking ----------------------------------------------------------------------

def _smaller(scenario: Scenario) -> Iterator[Scenario]:
    """Candidates one step simpler than `scenario`."""
    faults, actions = scenario.faults, scenario.actions
    if len(faults) > 1:
        for i in range(len(faults)):
            kept = faults[:i] + faults[i + 1:]
            yield dataclasses.replace(scenario, faults=kept, expect=_expect(kept),
                                      actions=_without_fault(actions, i + 1))
    for i in range(len(actions)):
        yield dataclasses.replace(scenario, actions=actions[:i] + actions[i + 1:])
    last = max(f.cycle for f in faults)
    if last < scenario.cycles:
        yield dataclasses.replace(scenario, cycles=max(last, 1))
    if min(f.cycle for f in faults) > 1:
        moved = tuple(dataclasses.replace(f, cycle=f.cycle - 1) for f in faults)
        yield dataclasses.replace(scenario, faults=moved, cycles=scenario.cycles - 1,
                                  expect=_expect(moved))


def _without_fault(actions: tuple[ActionSpec, ...], n: int) -> tuple[ActionSpec, ...]:
    """The actions once [[fault]] #n is dropped: its own go with it, later ones renumber."""
    kept = []
    for action in actions:
        if action.for_fault == n:
            continue
        if action.for_fault is not None and action.for_fault > n:
            action = dataclasses.replace(action, for_fault=action.for_fault - 1)
        kept.append(action)
    return tuple(kept)


def minimise(run: Runner, scenario: Scenario, classes: list[str], wall_limit_s: float,
             budget: int = 12) -> tuple[Scenario, list[str]]:
    """Shrink while the first failure class stays; at most `budget` extra runs."""
    target = classes[0]
    for _ in range(budget):
        for candidate in _smaller(scenario):
            budget -= 1
            found = judge(run, candidate, wall_limit_s)
            if target in found:
                scenario, classes = candidate, found
                break
            if budget <= 0:
                return scenario, classes
        else:
            break
    return scenario, classes


# -- scenario files ----------------------------------------------------------------

def to_toml(scenario: Scenario, classes: list[str], note: str = "") -> str:
    """A scenario file that `mjtable simulate --scenario` and the tests read back."""
    lines = [f"# Found by mjtable fuzz ({scenario.source}): {', '.join(classes)}."]
    if note:
        lines += [f"# {line}" for line in note.splitlines()]
    lines += [f"seed = {scenario.seed}", f"cycles = {scenario.cycles}"]
    if scenario.config is not None:
        lines.append(f"config = {_toml(scenario.config)}")
    if scenario.play_time_s is not None:
        lines.append(f"play_time_s = {scenario.play_time_s}")
    fields = {f.name: f.default for f in dataclasses.fields(FaultSpec)}
    for spec in scenario.faults:
        lines += ["", "[[fault]]"]
        for name, default in fields.items():
            value = getattr(spec, name)
            if name in ("kind", "where", "cycle") or (value is not None and value != default):
                lines.append(f"{name} = {_toml(value)}")
    for action in scenario.actions:
        lines += ["", "[[action]]", f"after_fault = {_toml(action.after_fault)}",
                  f"do = {_toml(action.do)}", f"delay_s = {action.delay_s}"]
        if action.where is not None:
            lines.append(f"where = {_toml(action.where)}")
        if action.for_fault is not None:
            lines.append(f"for_fault = {action.for_fault}")
    expect = scenario.expect
    lines += ["", "[expect]", f"faults = {_toml(list(expect.faults))}",
              f"allow = {_toml(sorted(expect.allow))}"]
    if expect.cycles_completed is not None:
        lines.append(f"cycles_completed = {expect.cycles_completed}")
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


# -- the batch ------------------------------------------------------------------------

def fuzz(run: Runner, count: int, seed: int, *, rig: str = "sim", out: Path | None = None,
         wall_limit_s: float | None = None, shrink: bool = True,
         progress: Callable[[int, int, int], None] | None = None,
         wide: bool = False, other: Runner | None = None) -> dict[str, Any]:
    """Run `count` random scenarios; the counts per class and the failures' files.
    `other` (another table size) runs every second scenario; `wide`: generate().
    `wall_limit_s` defaults to the rig's (simulator/rigs/rig.py)."""
    if wall_limit_s is None:
        wall_limit_s = RIGS[rig].wall_limit_s
    totals = dict.fromkeys(CLASSES, 0)
    failures: list[dict[str, Any]] = []
    passed = done = 0
    started = time.perf_counter()
    first = run
    try:
        for index in range(count):
            if other is not None and index % 2:
                run = other
            else:
                run = first
            config: Config | None = getattr(run, "config", None)
            tiles = config.table.tiles if config is not None else REFERENCE.tiles
            reader = config.table.tile_reader if config is not None else True
            scenario = dataclasses.replace(generate(seed, index, rig, tiles, wide, reader),
                                           config=_config_file(config))
            classes = judge(run, scenario, wall_limit_s)
            done += 1
            if not classes:
                passed += 1
            for name in classes:
                totals[name] += 1
            if classes:
                failures.append(_failure(run, scenario, classes, index, seed, out,
                                         wall_limit_s, shrink))
            if progress is not None:
                progress(done, count, len(failures))
    except KeyboardInterrupt:
        pass     # report what ran: Ctrl-C stops cleanly between runs
    return {"rig": rig, "seed": seed, "runs": done, "passed": passed, **totals,
            "failures": failures, "interrupted": done < count,
            "wall_time_s": round(time.perf_counter() - started, 1)}


def _failure(run: Runner, scenario: Scenario, classes: list[str], index: int, seed: int,
             out: Path | None, wall_limit_s: float, shrink: bool) -> dict[str, Any]:
    small, small_classes = (minimise(run, scenario, classes, wall_limit_s) if shrink
                            else (scenario, classes))
    row: dict[str, Any] = {"scenario_file": None, "classes": classes, "index": index}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"fuzz_{seed}_{index}.toml"
        path.write_text(to_toml(small, small_classes))
        row["scenario_file"] = str(path)
    return row
