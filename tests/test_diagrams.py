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
