"""Electronic dice bound before the walls: the faces of each hand come from a seed
whose digest the hand before committed before this hand's set was built, and
`mjtable verify-deals` catches a firmware that rolls again after seeing the walls."""

from __future__ import annotations

import collections
import copy
import dataclasses
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import firmware.hands.handoff as handoff_module
from firmware.hands.handoff import Handoff, display_text
from mjtable.cli import main
from mjtable_core.config import load_config
from rules import dicecommit
from rules.chain import read_records, verify_history
from simulator.harness.runner import assemble
from tests.conftest import quick


def play(path: Path, hands: int = 4,
         watch: Callable[[Any, dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run the simulated table until `hands` records are in `path`; the events seen."""
    config = quick(load_config(), play_time_s=1.0)
    config = dataclasses.replace(config, rules=dataclasses.replace(
        config.rules, handoff_file=str(path)))
    bench = assemble(config, seed=31)
    ctl = bench.controller
    events: list[dict[str, Any]] = []
    ctl.subscribers.append(lambda e: (events.append(e), watch and watch(ctl, e)))
    ctl.start()
    bench.players.start()
    bench.clock.run_until(20000.0, until=lambda: len(ctl.handoff.records) >= hands)
    assert len(ctl.handoff.records) >= hands
    return events


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path_factory.mktemp("dice") / "handoff.jsonl"
    shown: list[dict[str, Any]] = []

    def watch(ctl: Any, event: dict[str, Any]) -> None:
        if event["kind"] == "walls.committed":
            shown.append({"display": ctl.hal.read("display"), **event})

    events = play(path, watch=watch)
    return path, [*events, *({**s, "kind": "shown"} for s in shown)]


def test_faces_from_a_seed_are_fixed_and_fair() -> None:
    seed = "0" * 31 + "1"
    assert dicecommit.faces(seed, 0, 2) == dicecommit.faces(seed, 0, 2)
    assert dicecommit.seed_commitment(seed).startswith("sha256:")
    counts = collections.Counter(
        face for n in range(3000) for face in dicecommit.faces(f"{n:032x}", n % 3, 2))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # 6,000 faces: each near 1,000 (a modulo bias of 256 % 6 would still pass this; the
    # rejection of bytes >= 252 is what removes it, by construction).
    assert all(850 < c < 1150 for c in counts.values()), counts
    with pytest.raises(dicecommit.RulesError):
        dicecommit.faces("not hex", 0, 2)


def test_every_hand_rolls_the_seed_the_hand_before_committed(honest: Any) -> None:
    path, events = honest
    recs = records(path)
    for before, record in itertools.pairwise(recs):
        assert record["dice_binding"] == "committed"
        seed = record["dice_seed"]
        assert seed["commitment"] == before["next_dice_commitment"]
        assert seed["committed_in"] == before["table"]["cycle"]
        assert [d["faces"] for d in record["dice"]] == [
            dicecommit.faces(seed["seed"], i, len(d["faces"]))
            for i, d in enumerate(record["dice"])]
    # The next hand's seed digest was public when these walls rose, before its set
    # was built (the build starts after the commitment).
    kinds = [e["kind"] for e in events]
    first_commit = kinds.index("walls.committed")
    assert "build.started" in kinds[first_commit:]
    verdict = verify_history(read_records(path.read_text().splitlines()))
    assert verdict.ok, verdict.problem
    # The first record has no hand before it in the file: counted, never passed as checked.
    assert verdict.dice_checked == len(recs) - 1 and verdict.dice_unbound == [1]


def test_the_display_shows_the_commitment_before_the_dice(honest: Any) -> None:
    path, events = honest
    shown = [e for e in events if e["kind"] == "shown"]
    assert shown
    for s in shown:
        assert s["display"] == display_text(s["commitment"])
        assert len(s["display"]) == 5 and s["display"].startswith("c")
    committed = {r["commitment"] for r in records(path)}
    assert committed <= {s["commitment"] for s in shown}


def cheat(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """A dishonest firmware: once the walls are up, it rolls again, or draws a new seed
    whose faces it likes, instead of the seed committed before the walls were built."""
    real = Handoff.faces

    def faces(self: Handoff, throw: int, dice: int) -> list[int]:
        if how == "reroll":
            return [f % 6 + 1 for f in real(self, throw, dice)]
        if throw == 0 and self._dice is not None:
            self._dice = {**self._new_seed(), "committed_in": self._dice["committed_in"]}
        return real(self, throw, dice)

    monkeypatch.setattr(handoff_module.Handoff, "faces", faces)


@pytest.mark.parametrize(("how", "line", "words"), [
    ("reroll", 1, "rolled again"),
    ("reseed", 2, "chosen after the walls were seen")])
def test_a_firmware_that_rolls_after_seeing_the_walls_is_caught(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
        how: str, line: int, words: str) -> None:
    cheat(monkeypatch, how)
    path = tmp_path / "handoff.jsonl"
    play(path, hands=3)
    assert main(["verify-deals", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"line {line} " in err and words in err, err


def test_a_record_whose_dice_were_edited_is_named(honest: Any, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    path, _ = honest
    recs = records(path)
    bad = tmp_path / "edited.jsonl"
    # Faces changed in the file (a different break claimed afterwards).
    forged = copy.deepcopy(recs)
    forged[2]["dice"][0]["faces"] = [f % 6 + 1 for f in forged[2]["dice"][0]["faces"]]
    bad.write_text("".join(json.dumps(r) + "\n" for r in forged))
    assert main(["verify-deals", str(bad)]) == 1
    assert "line 3 " in capsys.readouterr().err
    # The next hand's dice digest swapped: it is bound in the commitment players saw.
    forged = copy.deepcopy(recs)
    forged[1]["next_dice_commitment"] = forged[2]["dice_seed"]["commitment"] = \
        dicecommit.seed_commitment("f" * 32)
    bad.write_text("".join(json.dumps(r) + "\n" for r in forged))
    assert main(["verify-deals", str(bad)]) == 1
    assert "line 2 " in capsys.readouterr().err
    # The honest file: exit 0, and the dice summary says what was checked.
    assert main(["verify-deals", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"dice: {len(recs) - 1} hands" in out and "lines 1" in out
