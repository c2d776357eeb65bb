"""A new fault kind is written in three files: its family's module (its kinds, suspects
and evidence rule), its zh_CN strings and its test; `make docs` regenerates the fault
tables. Shown here with a family no module has heard of, written as a module of its own:
gathered into the catalogue as catalogue.py gathers the others, nothing else in the
firmware, the docs' generator, the fault card or the referee is told of it."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

from firmware.diagnosis.faultcard import entries
from firmware.faults.kinds import CATALOGUE, FAMILIES, TABLE
from firmware.faults.kinds.catalogue import gathered
from firmware.faults.tables import catalogue_table, clearing_table
from tests.conftest import ROOT
from tests.test_diagnosis import run_check, table_in_play

FAMILY = '''
"""A belt that slips under the tiles: the tiles ride, the belt turns."""

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import ERROR, FaultKind
from firmware.faults.kinds.parts import COUNT
from firmware.i18n import N_

BELT: Suspect = ("side.{side}.belt", N_("the belt of side {side} worn smooth"))


def slipping(view: EvidenceView) -> Ranked:
    if view.evidence.get("belt_turned") and view.tiles_per_side:
        return ([BELT, COUNT], N_("mark the belt of side {side} and run its conveyor "
                                  "self-test: a mark that moves ahead of the tiles is a "
                                  "slipping belt"), "conveyor.{side}")
    return [COUNT], None, None


KINDS = (
    FaultKind("belt.slipping", "E77", ERROR, N_("the belt slips under the tiles"),
              (N_("a worn belt"),), (N_("replace the belt of side {side}"),),
              short=N_("belt slips"), rule=slipping, symptoms=("wrong_tile_count",),
              sees="the conveyor turns, no tile arrives"),
)
'''


@pytest.fixture
def belt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    (tmp_path / "belt_family.py").write_text(FAMILY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "belt_family", raising=False)
    family = importlib.import_module("belt_family")
    # Gathered after the others, as a module listed last in catalogue.py's FAMILIES.
    kinds = gathered([*FAMILIES, family])
    assert list(kinds)[:-1] == list(CATALOGUE) and list(kinds)[-1] == "belt.slipping"
    monkeypatch.setitem(CATALOGUE, "belt.slipping", kinds["belt.slipping"])
    return family


def test_a_kind_in_a_new_family_module_is_all_the_table_needs(belt: ModuleType) -> None:
    harness = table_in_play()
    ctl = harness.ctl
    fault = ctl.fault("belt.slipping", "side.2.conveyor", 2, {"belt_turned": True})
    assert ctl.hal.read("display") == "E77"
    assert ctl.shutdown.scopes == {TABLE}          # its scope: every output
    diagnosis = fault.diagnosis()
    # Its own rule, read through the evidence view, with its own suspect first.
    assert [s["part"] for s in diagnosis["suspects"]] == ["side.2.belt", "side.2.count"]
    assert diagnosis["suspects"][0]["cause"] == "the belt of side 2 worn smooth"
    assert diagnosis["remedy"][0].startswith("mark the belt of side 2")
    assert fault.diagnosis_extra is not None
    assert fault.diagnosis_extra["self_test"] == "conveyor.2"
    assert "the belt slips" in run_check(harness, "wrong_tile_count")["verdict"]
    assert any(row["name"] == "belt slips" for row in entries())
    harness.clock.run_until(harness.clock.now() + 2.0)
    assert harness.referee.violations == []        # an E it does not name: every motor


def test_the_docs_tables_follow_a_new_family(belt: ModuleType) -> None:
    assert clearing_table().splitlines()[-1] == (
        "| `belt.slipping` | E77 | the belt slips under the tiles | every motor | "
        "technician clears; the interrupted motion is issued again |")
    assert catalogue_table().splitlines()[-1] == (
        "| `belt.slipping` | E77 | the conveyor turns, no tile arrives | a worn belt → "
        "replace the belt of side N |")


def test_a_family_writing_an_id_twice_is_refused(belt: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"belt\.slipping written twice"):
        gathered([*FAMILIES, belt, belt])


# An event of this name is emitted before its fault (firmware/faults/path.py): the
# console's words for that event are not a branch on the fault.
EVENTS_NAMED_AS_FAULTS = {"software.error"}


def _branches_on_fault_ids(source: str) -> list[int]:
    """Lines where `source` compares to a fault id written out, tests an id's prefix
    or keys a dict by one: a decision about a kind taken outside its family module."""
    ids = set(CATALOGUE) - EVENTS_NAMED_AS_FAULTS
    prefixes = {i.partition(".")[0] + "." for i in CATALOGUE}

    def named(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Constant) and (
            node.value in ids or node.value in prefixes)

    def branches(node: ast.AST) -> bool:
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            return any(map(named, operands + [
                e for o in operands if isinstance(o, ast.Tuple | ast.Set | ast.List)
                for e in o.elts]))
        if isinstance(node, ast.Dict):
            return any(map(named, node.keys))
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith")
                and any(map(named, node.args)))

    return sorted(node.lineno for node in ast.walk(ast.parse(source)) if branches(node))


def test_no_module_outside_the_families_branches_on_a_fault_id() -> None:
    """What a kind means is asked of the kind (its fields, its rule, its verdict); a
    module that raises or looks for one kind names it by its family's constant."""
    kinds = ROOT / "firmware" / "faults" / "kinds"
    found = {str(path.relative_to(ROOT)): lines
             for path in sorted((ROOT / "firmware").rglob("*.py"))
             if kinds not in path.parents
             and (lines := _branches_on_fault_ids(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_branch_finder_finds_a_branch() -> None:
    assert _branches_on_fault_ids(
        'if fault.id == "head.jam":\n    pass\n'
        'x = {"count.blind": 1}\n'
        'y = fault_id.startswith("lid.")\n'
        'z = fault_id in ("link.lost", "other")\n'
        'ctl.fault("head.jam", "side.0.head", 0, {})\n') == [1, 3, 4, 5]
