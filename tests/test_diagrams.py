"""docs/state-machines.md is generated from the machines and must be current."""

from __future__ import annotations

from firmware.diagrams import document
from tests.conftest import ROOT


def test_state_diagrams_are_current() -> None:
    current = (ROOT / "docs" / "state-machines.md").read_text(encoding="utf-8")
    assert current == document(), "stale: run `make diagrams` and commit docs/state-machines.md"


def test_every_machine_has_a_fault_state_and_no_auto_transitions() -> None:
    text = document()
    assert text.count("```mermaid") == 6
    assert "to_" not in text


def test_every_fault_id_is_documented() -> None:
    from firmware.faults.kinds import CATALOGUE

    text = (ROOT / "docs" / "faults.md").read_text(encoding="utf-8")
    for fault_id, kind in CATALOGUE.items():
        assert f"`{fault_id}` | {kind.code} |" in text, fault_id


def test_fault_tables_are_generated_from_the_kinds() -> None:
    """docs/faults.md and docs/mechanics.md carry the catalogue as the kinds say it."""
    from firmware.faults.tables import TABLES, rewritten

    for name, table in TABLES.items():
        current = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert current == rewritten(current, table(), name), (
            f"stale: run `make docs` and commit docs/{name}")


def test_every_fault_kind_says_what_the_firmware_sees() -> None:
    from firmware.faults.kinds import CATALOGUE

    assert [k.id for k in CATALOGUE.values() if not k.sees] == []
