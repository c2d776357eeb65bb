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
