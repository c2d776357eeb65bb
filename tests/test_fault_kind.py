"""A fault's behaviour lives on its kind (firmware/faults/kinds/): no module keeps a set of
fault ids, and a new kind is one catalogue entry plus the code that raises it."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from firmware.diagnosis.faultcard import entries
from firmware.diagnosis.guided import PASSIVE
from firmware.faults.kinds import (
    BUILD,
    CASE_CLOSED,
    CATALOGUE,
    CLEAR,
    ERROR,
    FAMILIES,
    REFEED,
    RELINK,
    TABLE,
    FaultKind,
)
from firmware.faults.kinds.count import double
from tests.test_diagnosis import run_check, table_in_play

ROOT = Path(__file__).resolve().parent.parent
# What an injected problem may raise is the simulator's own expectation, kept apart from
# the firmware's on purpose: its scenario, fuzz and soak tables are keyed by problem; and
# what a fault must stop is the referee's own judgement of the physics.
SIMULATOR_EXPECTATIONS = {"simulator/scenario.py", "simulator/fuzz/batch.py",
                          "simulator/fuzz/soak.py", "simulator/harness/stops.py"}


def _code_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    return [f for f in listed if f.split("/")[0] in (
        "firmware", "hal", "mjtable_core", "venue", "board", "simulator")
        and not f.startswith("firmware/faults/kinds/") and f not in SIMULATOR_EXPECTATIONS]


def _tables_of_ids(path: str) -> list[str]:
    """Where `path` spells two fault ids or more side by side: a set, list, tuple or
    dict, a call's arguments, or a chain of comparisons."""
    found = []
    for node in ast.walk(ast.parse((ROOT / path).read_text())):
        items: list[ast.expr] = []
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None] + list(node.values)
        elif isinstance(node, ast.Call):
            items = list(node.args)
        elif isinstance(node, ast.BoolOp):
            items = [c.comparators[0] for c in node.values if isinstance(c, ast.Compare)]
        ids = {n.value for n in items if isinstance(n, ast.Constant) and n.value in CATALOGUE}
        if len(ids) >= 2:
            found.append(f"{path}:{node.lineno} {sorted(ids)}")
    return found


def test_no_module_keeps_a_table_of_fault_ids() -> None:
    # Scope, untrusted counts, what answers a fault, short names, evidence rules and
    # symptoms were sets and dicts of ids in five modules; the referee imported two.
    assert [hit for path in _code_files() for hit in _tables_of_ids(path)] == []


def test_the_referee_keeps_no_copy_of_the_firmwares_sets() -> None:
    # It keeps its own table instead (tests/test_referee_table.py).
    for path in ("simulator/harness/referee.py", "simulator/harness/runner.py"):
        text = (ROOT / path).read_text()
        assert "BUILD_SCOPE" not in text and "UNTRUSTED_COUNT" not in text


@pytest.mark.parametrize("fault_id", sorted(CATALOGUE))
def test_every_kind_names_what_exists(fault_id: str) -> None:
    kind = CATALOGUE[fault_id]
    assert kind.scope in (BUILD, TABLE)
    assert kind.answer in (CLEAR, REFEED, RELINK, CASE_CLOSED)
    # Written in its family's module, and its evidence rule beside it.
    family = next(f for f in FAMILIES if kind in f.KINDS)
    assert kind.rule is None or kind.rule.__module__ == family.__name__
    assert set(kind.symptoms) <= set(PASSIVE)
    assert kind.short


def test_a_new_fault_kind_is_one_catalogue_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    # A kind no module has heard of: only its entry says how the table treats it.
    kind = FaultKind("belt.slipping", "E77", ERROR, "the belt slips under the tiles",
                     ("a worn belt",), ("replace the belt of side {side}",),
                     short="belt slips", scope=BUILD, untrusts_count=True, answer=REFEED,
                     rule=double, symptoms=("wrong_tile_count",))
    monkeypatch.setitem(CATALOGUE, kind.id, kind)
    harness = table_in_play()
    ctl = harness.ctl
    fault = ctl.fault("belt.slipping", "side.2.count", 2, {})
    assert ctl.hal.read("display") == "E77"
    assert ctl.shutdown.scopes == {BUILD}          # its scope: the build's motors only
    assert fault.diagnosis()["suspects"][0]["part"] == "side.2.count"   # its rule
    assert fault.diagnosis()["remedy"] == ["replace the belt of side 2"]
    assert "the belt slips" in run_check(harness, "wrong_tile_count")["verdict"]
    assert any(row["name"] == "belt slips" for row in entries())
    harness.clock.run_until(harness.clock.now() + 2.0)
    # Not named in the referee's table: judged as stopping every motor, and none runs.
    assert harness.referee.violations == []
