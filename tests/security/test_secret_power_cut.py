"""A power cut in play keeps the deal chain whole: the last hand's nonce and the next
hand's dice seed are journaled (0600), so the record after the cut reveals the hand
before it and rolls the seed that hand bound, and `mjtable verify-deals` checks the
whole file; and none of that secret is served by the API."""

from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path

import pytest

from firmware.state.journal import FileJournal
from mjtable.cli import main
from mjtable_core.config import load_config
from rules.chain import verify_file
from simulator.harness.runner import Harness
from simulator.scenario import parse_scenario
from tests.conftest import quick


def _run(tmp_path: Path, phase: str) -> tuple[dict, Harness, Path]:
    path = tmp_path / "handoff.jsonl"
    config = quick(load_config(None), 60.0)
    config = dataclasses.replace(config, rules=dataclasses.replace(
        config.rules, handoff_file=str(path)))
    raw = {"seed": 7, "cycles": 4,
           "fault": [{"kind": "power_cut", "where": "power", "cycle": 2, "phase": phase,
                      "duration_s": 5.0}],
           "action": [{"after_fault": "power.recovered", "do": "refeed"}],
           "expect": {"faults": ["power.recovered"], "cycles_completed": 4}}
    harness = Harness(config, parse_scenario(raw, "<test>"))
    # The journal as a table keeps it: a file, written whole, 0600.
    harness.journal = FileJournal(tmp_path / "state")   # type: ignore[assignment]
    return harness.run(), harness, path


@pytest.mark.parametrize("phase", ["play", "build"])
def test_a_power_cut_in_play_keeps_the_deal_file_verifiable(
        tmp_path: Path, phase: str, capsys: pytest.CaptureFixture[str]) -> None:
    report, harness, path = _run(tmp_path, phase)
    assert report["problems"] == []
    assert [f for f in harness.faults if f["id"] == "power.recovered"], "no cut happened"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) >= 4
    verdict = verify_file(str(path))
    assert verdict.ok, verdict.problem
    # Every record but the last is checked, and every hand's dice were bound before
    # its walls except the very first (nothing before it to bind them).
    assert verdict.reveals_checked == len(records) - 1
    assert verdict.dice_unbound == [1]
    assert verdict.dice_checked == len(records) - 1
    assert main(["verify-deals", str(path)]) == 0
    capsys.readouterr()
    journal = tmp_path / "state" / "journal.json"
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600


def test_the_journaled_secret_is_never_served(tmp_path: Path) -> None:
    """The nonce and next seed the journal keeps appear in no event while in play."""
    _, harness, path = _run(tmp_path, "play")
    saved = json.loads((tmp_path / "state" / "journal.json").read_text())
    secret = saved["handoff"]
    assert secret["nonce"] and secret["next_dice"]["seed"]
    status = json.dumps(harness.ctl.status())
    assert secret["nonce"] not in status
    assert secret["next_dice"]["seed"] not in status
    # The hand in play has no record yet that reveals its nonce.
    assert secret["nonce"] not in path.read_text()
