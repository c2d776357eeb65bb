"""The repository stands alone: what a user needs is under docs/, and nothing points
outside it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware.faults.kinds import CATALOGUE
from mjtable_core.signals import catalogue
from rules.request import OPTIONAL, REQUIRED

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache", ".ruff_cache",
             ".hypothesis", "state"}
TEXT = {".py", ".md", ".toml", ".txt", ".in", ".sysusers", ".json", ".cfg", ""}
# Notes kept beside the repository, never shipped with it (spelled in parts so this
# file does not name them itself).
OUTSIDE = [name + end for name in ("RULES", "MECHANICS", "DESIGN", "STYLE")
           for end in (".md", " §")] + ["GLOSS" + "ARY", "shared" + "/"]


def _files() -> list[Path]:
    out = []
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if parts & SKIP_DIRS or any(p.endswith(".egg-info") for p in parts):
            continue
        if path.is_file() and path.suffix in TEXT:
            out.append(path)
    return out


FILES = _files()


def test_nothing_refers_to_notes_outside_the_repository() -> None:
    found = [f"{path.relative_to(ROOT)}: {name}" for path in FILES
             for name in OUTSIDE if name in path.read_text(errors="replace")]
    assert found == []


def test_every_docs_page_named_exists() -> None:
    named = {m for path in FILES
             for m in re.findall(r"docs/[\w.-]+\.md", path.read_text(errors="replace"))}
    assert named, "no docs page is named anywhere"
    missing = sorted(name for name in named if not (ROOT / name).is_file())
    assert missing == []


def _generic(name: str) -> str:
    """`side.2.count` → `side.N.count`: the docs name one signal per kind of side or seat
    (the two lift keys are not per seat and keep their numbers)."""
    return re.sub(r"(side|dealer|dice)\.\d", r"\1.N", name)


@pytest.mark.parametrize("name", sorted({_generic(n) for n in catalogue(True, True)}))
def test_mechanics_names_every_signal(name: str) -> None:
    assert f"`{name}`" in (ROOT / "docs" / "mechanics.md").read_text()


@pytest.mark.parametrize("fault_id", sorted(CATALOGUE))
def test_mechanics_names_every_fault(fault_id: str) -> None:
    text = (ROOT / "docs" / "mechanics.md").read_text()
    assert f"| `{fault_id}` | {CATALOGUE[fault_id].code} |" in text


@pytest.mark.parametrize("key", REQUIRED + OPTIONAL)
def test_deal_format_names_every_input_key(key: str) -> None:
    assert f"| `{key}` |" in (ROOT / "docs" / "deal-format.md").read_text()


def test_deal_help_points_at_the_deal_format(capsys: pytest.CaptureFixture[str]) -> None:
    from rules.cli import deal_main

    with pytest.raises(SystemExit):
        deal_main(["--help"])
    assert "docs/deal-format.md" in capsys.readouterr().out


def test_the_scenario_format_is_documented_under_docs() -> None:
    # A scenario is written by whoever tests a table, from an installed package too:
    # every key, kind, phase and action of the checker is on docs/scenarios.md.
    import dataclasses

    from simulator.scenario import (
        ACTIONS,
        KINDS,
        PHASES,
        ActionSpec,
        Expect,
        FaultSpec,
        Scenario,
    )

    page = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    keys = {f.metadata.get("key") or f.name for cls in (Scenario, FaultSpec, ActionSpec, Expect)
            for f in dataclasses.fields(cls) if f.name != "source"}
    named = sorted(keys | set(KINDS) | set(PHASES) | set(ACTIONS))
    missing = [name for name in named
               if not any(form in page for form in (f"`{name}`", f"`[{name}]`", f"`[[{name}]]`"))]
    assert missing == [], f"docs/scenarios.md does not explain: {missing}"
