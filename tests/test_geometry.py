"""The table's geometry lives in mjtable_core/geometry.py and nowhere else (docs/design.md)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from firmware.controller import compose_table
from firmware.machines.maintenance import jog_motors, mechanism_tests
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, parse_config
from mjtable_core.geometry import MODELS, REFERENCE, Geometry, Shape
from mjtable_core.schema import ConfigError, read_toml
from mjtable_core.signals import catalogue
from tests.conftest import ScriptedHal

ROOT = Path(__file__).resolve().parent.parent

# Literals that would hard-code four sides or the sets "A"/"B" outside mjtable_core/geometry.py.
FORBIDDEN = re.compile(r"""range\(4\)|%\s*4\b|//\s*4\b|\*\s*4\b|\b4\s*\*|\bSIDES\s*[:=]"""
                       r"""|["'](A|B|AB)["']|\bset\.[AB]\b"""
                       # the sides or sets spelled out: a tuple, a regex class, a length
                       r"""|\(0,\s*1,\s*2,\s*3\)|\[0,\s*1,\s*2,\s*3\]|\[0-3\]|\[AB\]"""
                       r"""|\blen\([^()]*\)\s*[!=<>]=\s*4\b""")
# Justified exceptions: (file, the line's text). Each says why it is not geometry; an
# entry whose line is gone fails the test, so the list cannot outlive its reasons.
ALLOWED: set[tuple[str, str]] = set()
CHECKED = ("firmware", "hal", "simulator", "venue", "bench")
# Whole files that count seats, not sides: the rules' own arithmetic, as in rules/.
SEAT_ARITHMETIC = {"bench/rules/bench_deal.py"}


def test_no_geometry_literals_outside_core() -> None:
    found, allowed_seen = [], set()
    for package in CHECKED:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in SEAT_ARITHMETIC:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if not FORBIDDEN.search(code):
                    continue
                if (rel, code.strip()) in ALLOWED:
                    allowed_seen.add((rel, code.strip()))
                else:
                    found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "geometry literals (ask mjtable_core.geometry.Geometry):\n" + "\n".join(found)
    assert allowed_seen == ALLOWED, f"allowed lines no longer there: {ALLOWED - allowed_seen}"


def test_the_grep_sees_what_it_forbids() -> None:
    # The pattern itself must catch the shapes it is meant to (a grep that cannot fail
    # guards nothing).
    for line in ("for n in range(4):", "x = (d + 1) % 4", "SIDES = range(4)",
                 'if s == "A":', "rng.choice('AB')", 'where = "set.B"', "n = tiles // 4",
                 'SIDE = r"side\\.[0-3]"', 'r"set\\.[AB]"', "for p in (0, 1, 2, 3):",
                 "sides = [0, 1, 2, 3]", "if len(walls) != 4:", "counts = [0] * 4"):
        assert FORBIDDEN.search(line), line
    for line in ("round(x, 4)", "payload[:4]", "self.sim.push_time_s / 4", '"Ack"',
                 "if len(payload) < 4:", 'r"[A-Z]"'):
        assert not FORBIDDEN.search(line), line


def test_reference_geometry() -> None:
    g = Geometry(tiles=136)
    assert (g.side_count, list(g.sides), g.sets) == (4, [0, 1, 2, 3], ("A", "B"))
    assert (g.tiles_per_side, g.stacks_per_side) == (34, 17)
    assert (REFERENCE.tiles_per_side, REFERENCE.stacks_per_side) == (36, 18)
    assert g.first_set == "A"
    assert [g.next_set(s) for s in ("A", "B", None)] == ["B", "A", "A"]
    assert [g.side_after(3), g.side_after(1, 2)] == [0, 3]
    with pytest.raises(ValueError, match="unknown table model"):
        Geometry(model="three-mouth-one-set")


def _raw(config_path: Path) -> dict:
    return read_toml(config_path)


def test_model_refused_with_file_section_and_key(config: Config) -> None:
    raw = _raw(Path(config.source))
    raw["table"]["model"] = "three-mouth-two-set"
    with pytest.raises(ConfigError) as err:
        parse_config(raw, "venue.toml")
    assert (err.value.file, err.value.section, err.value.key) == ("venue.toml", "table", "model")
    assert "four-mouth-two-set" in str(err.value)      # what is allowed


def test_stacks_per_wall_checked_against_the_geometry(config: Config) -> None:
    raw = _raw(Path(config.source))
    raw["table"]["stacks_per_wall"] = 17
    with pytest.raises(ConfigError) as err:
        parse_config(raw, "venue.toml")
    assert (err.value.section, err.value.key) == ("table", "stacks_per_wall")
    assert "use 18" in str(err.value)


def test_a_config_geometry_reaches_machines_tests_jog_and_status(
        config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a three-mouth table (docs/design.md says what that needs), but proof that the
    firmware counts sides from the config's geometry, not from a literal."""
    monkeypatch.setitem(MODELS, "three-mouth-two-set", Shape(sides=3, sets=("A", "B")))
    table = dataclasses.replace(config.table, model="three-mouth-two-set", stacks_per_wall=24)
    three = dataclasses.replace(config, table=table)
    geometry = three.geometry
    assert (geometry.side_count, geometry.tiles_per_side) == (3, 48)
    clock = VirtualClock()
    hal = ScriptedHal(clock)
    hal.signals = catalogue(True, True, geometry)
    assert not [name for name in hal.signals if ".3" in name]
    ctl = compose_table(three, hal, clock, consumers=False)
    assert len(ctl.sides) == len(ctl.plates) == 3
    status = ctl.status()
    assert len(status["sides"]) == 3 and {s["target"] for s in status["sides"]} == {48}
    assert "lamp.dealer.3" not in status["lamps"] and "lamp.dealer.2" in status["lamps"]
    tests = mechanism_tests(geometry)
    assert [t.number for t in tests] == list(range(1, 13))
    assert "head.3" not in jog_motors(geometry) and "head.2" in jog_motors(geometry)
