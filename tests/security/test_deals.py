"""Verifiable deals: the commitment is public before the dice, each record chains the
one before it, and `mjtable verify-deals` names the first record that was rewritten."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

import rules
from mjtable.cli import main
from mjtable_core.config import load_config
from rules.chain import read_records, verify_history
from simulator.harness.runner import assemble
from tests.conftest import quick


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path_factory.mktemp("deals") / "handoff.jsonl"
    config = quick(load_config(), play_time_s=1.0)
    config = dataclasses.replace(config, rules=dataclasses.replace(
        config.rules, handoff_file=str(path)))
    bench = assemble(config, seed=12)
    events: list[dict[str, Any]] = []
    ctl = bench.controller
    ctl.subscribers.append(events.append)
    ctl.start()
    bench.players.start()
    bench.clock.run_until(20000.0, until=lambda: len(ctl.handoff.records) >= 5)
    assert len(ctl.handoff.records) >= 5
    return path, events


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def redeal(record: dict[str, Any], walls: list, nonce: str) -> dict[str, Any]:
    """What a dishonest operator does: the same deal again from other walls, same nonce."""
    table = record["table"]
    again = rules.deal(walls, [d["faces"] for d in record["dice"]], record["variant"],
                       table["dealer_position"], table={k: table[k] for k in
                                                        ("id", "cycle", "set")},
                       dice_source=[d["source"] for d in record["dice"]], nonce=nonce,
                       prevalent_wind=table["prevalent_wind"],
                       previous_commitment=record.get("previous_commitment"),
                       next_dice=record.get("next_dice_commitment"))
    return {**again, "revealed": record["revealed"], "dice_binding": record["dice_binding"],
            "dice_seed": record["dice_seed"]}


def test_the_commitment_is_public_before_the_dice(history: Any) -> None:
    path, events = history
    for record in lines(path):
        cycle = record["table"]["cycle"]
        kinds = [(e["kind"], e.get("commitment")) for e in events
                 if e.get("cycle") == cycle or e["kind"] == "walls.committed"]
        committed = [i for i, (k, c) in enumerate(kinds)
                     if k == "walls.committed" and c == record["commitment"]]
        assert committed, f"hand {cycle}: its commitment was never published"
    first = next(i for i, e in enumerate(events) if e["kind"] == "walls.committed")
    thrown = next(i for i, e in enumerate(events) if e["kind"] == "dice.thrown")
    assert first < thrown


def test_an_honest_history_verifies(history: Any, capsys: pytest.CaptureFixture) -> None:
    path, _ = history
    records = lines(path)
    assert all(r["previous_commitment"] == p["commitment"]
               for p, r in itertools.pairwise(records))
    verdict = verify_history(read_records(path.read_text().splitlines()))
    assert verdict.ok and verdict.reveals_checked == len(records) - 1
    assert main(["verify-deals", str(path)]) == 0
    assert "one chain" in capsys.readouterr().out


def test_a_rewritten_record_is_named(history: Any, tmp_path: Path,
                                     capsys: pytest.CaptureFixture) -> None:
    """Attack: rewrite a dealt record, re-deal, keep the nonce: it passed the engine's
    own check, since the next record did not chain the previous one."""
    path, _ = history
    records = lines(path)
    nonce = records[2]["revealed"]["nonce"]        # revealed for record 1 (line 2)
    walls = copy.deepcopy(records[1]["walls"])
    walls[0][0], walls[1][0] = walls[1][0], walls[0][0]
    assert walls != records[1]["walls"]
    forged = copy.deepcopy(records)
    forged[1] = redeal(records[1], walls, nonce)
    assert rules.commitment(walls, nonce, records[1]["previous_commitment"],
                            records[1]["next_dice_commitment"]) == forged[1]["commitment"]
    bad = tmp_path / "forged.jsonl"
    write(bad, forged)
    assert main(["verify-deals", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "line 3" in err and "does not chain" in err
    # Patching the next record's link too breaks the commitment players saw for it.
    forged[2]["previous_commitment"] = forged[1]["commitment"]
    write(bad, forged)
    assert main(["verify-deals", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "line 3" in err and "published before the deal" in err
    # A record removed or two swapped: named too.
    write(bad, records[:2] + records[3:])
    assert main(["verify-deals", str(bad)]) == 1
    assert "line 3" in capsys.readouterr().err
    write(bad, [records[0], records[2], records[1], *records[3:]])
    assert main(["verify-deals", str(bad)]) == 1
    assert "line 2" in capsys.readouterr().err


def test_a_rewritten_record_with_its_reveal_removed_is_named(
        history: Any, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Attack: change a record's walls but keep its commitment (the chain holds), and
    drop the next record's `revealed` (bound in no commitment) or point it at another
    hand: the reveal was skipped and the history verified, exit 0."""
    path, _ = history
    records = lines(path)
    walls = copy.deepcopy(records[1]["walls"])
    walls[0][0], walls[1][0] = walls[1][0], walls[0][0]
    bad = tmp_path / "unrevealed.jsonl"
    for strip in (None, {**records[2]["revealed"], "cycle": -1}, "absent"):
        forged = copy.deepcopy(records)
        forged[1]["walls"] = walls
        if strip == "absent":
            del forged[2]["revealed"]
        else:
            forged[2]["revealed"] = strip
        write(bad, forged)
        assert main(["verify-deals", str(bad)]) == 1, strip
        err = capsys.readouterr().err
        assert "line 2" in err and "cannot be checked" in err, err


def test_a_refused_handoff_leaves_a_history_that_verifies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand whose walls the engine refused has no record; the next record must still
    reveal the nonce of the last recorded hand, or that hand could never be checked."""
    import firmware.hands.handoff as handoff_module
    path = tmp_path / "handoff.jsonl"
    config = quick(load_config(), play_time_s=1.0)
    config = dataclasses.replace(config, rules=dataclasses.replace(
        config.rules, handoff_file=str(path)))
    real_deal, calls = rules.deal, itertools.count()

    def deal(*args: Any, **kwargs: Any) -> dict[str, Any]:
        if next(calls) == 1:
            raise rules.RulesError("walls: a tile misread (test)")
        return real_deal(*args, **kwargs)

    monkeypatch.setattr(handoff_module.rules, "deal", deal)
    bench = assemble(config, seed=12)
    ctl = bench.controller
    refused: list[dict[str, Any]] = []
    ctl.subscribers.append(lambda e: refused.append(e) if e["kind"] == "handoff.refused"
                           else None)
    ctl.start()
    bench.players.start()
    bench.clock.run_until(20000.0, until=lambda: len(ctl.handoff.records) >= 3)
    assert refused and len(ctl.handoff.records) >= 3
    verdict = verify_history(read_records(path.read_text().splitlines()))
    assert verdict.ok, verdict.problem
    assert verdict.reveals_checked == verdict.records - 1
