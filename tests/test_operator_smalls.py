"""Smaller things an operator meets: a verdict line, packaged scenarios by name, a
sample deal input, deal output without Python lists."""

from __future__ import annotations

import io
import re
from pathlib import Path

from mjtable.cli import main
from simulator.scenario import load_scenario
from tests.conftest import ROOT


def test_a_passing_scenario_ends_with_a_verdict_line(capsys) -> None:
    assert main(["simulate", "--scenario", str(ROOT / "tests/scenarios/head_jam.toml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "verdict: PASSED"
    assert any("head jam (head.jam)" in line for line in out)   # the name, not only the id


def test_a_failing_scenario_ends_with_a_failed_verdict(tmp_path: Path, capsys) -> None:
    path = tmp_path / "unmet.toml"
    path.write_text("cycles = 1\n[expect]\nfaults = [\"head.jam\"]\n")
    assert main(["simulate", "--scenario", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: FAILED"


def test_packaged_scenarios_are_named_without_a_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)         # an install: no tests/ folder here
    assert load_scenario("head_jam").cycles == load_scenario("head_jam.toml").cycles
    (tmp_path / "head_jam").write_text("cycles = 1\n")  # a file here wins over the name
    assert load_scenario("head_jam").cycles == 1


def test_the_sample_deal_input_deals_and_prints_no_python_lists(capsys, monkeypatch) -> None:
    sample = ROOT / "docs" / "deal-example.json"
    assert "docs/deal-example.json" in (ROOT / "docs" / "deal-format.md").read_text()
    assert main(["deal", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "commitment sha256:" in out and "next draw wall 3 stack 4 level 1" in out
    assert not re.search(r"\[\d+(, \d+)*\]", out), out
    monkeypatch.setattr("sys.stdin", io.StringIO(sample.read_text()))
    assert main(["deal", "-"]) == 0


def test_every_fault_has_its_own_display_code_on_every_side() -> None:
    # count.double and count.blind shared E4N: `clear E42` could not tell them apart.
    from firmware.faults.kinds import CATALOGUE

    shown = [kind.display_code(side) for kind in CATALOGUE.values() for side in range(4)
             if "N" in kind.code or side == 0]
    assert len(shown) == len(set(shown))


def test_one_record_is_said_in_the_singular(tmp_path: Path, capsys) -> None:
    from rules.cli import report_text

    assert report_text({"records": 1, "note": "", "tests": {}, "verdict": "ok"}
                       ).startswith("1 record\n")


def test_ctrl_c_in_simulate_json_writes_the_partial_report(capsys, monkeypatch) -> None:
    import json

    from simulator.physics.players import SimPlayers

    hand_over = SimPlayers._hand_over

    def second_hand_interrupted(self: SimPlayers) -> None:
        if self.hands_played == 1:
            raise KeyboardInterrupt     # Ctrl-C while the table plays hand 2
        hand_over(self)

    monkeypatch.setattr(SimPlayers, "_hand_over", second_hand_interrupted)
    assert main(["simulate", "--json", "--cycles", "20"]) == 130
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["interrupted"] is True and report["completed"] is False
    assert 1 <= report["cycles_completed"] < 20
    assert any("interrupted" in p for p in report["problems"])
    assert "interrupted" in err


def test_ctrl_c_in_fuzz_says_it_was_interrupted(tmp_path: Path, capsys, monkeypatch) -> None:
    import simulator.fuzz.batch

    judge = simulator.fuzz.batch.judge
    runs = []

    def interrupted_at_the_second(*args, **kwargs):
        runs.append(1)
        if len(runs) == 2:
            raise KeyboardInterrupt
        return judge(*args, **kwargs)

    monkeypatch.setattr(simulator.fuzz.batch, "judge", interrupted_at_the_second)
    assert main(["fuzz", "--count", "5", "--out", str(tmp_path)]) == 130
    assert "fuzz: interrupted after 1 of 5 scenarios" in capsys.readouterr().err
