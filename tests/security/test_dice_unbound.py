"""A dishonest firmware that never binds the next hand's dice (it draws each seed once
the walls are up, and leaves `next_dice_commitment` out of every commitment) must not
pass `mjtable verify-deals` as one whose first record merely had nothing before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import firmware.hands.handoff as handoff_module
import rules
from firmware.hands.handoff import Handoff, display_text
from mjtable.cli import main
from tests.security.test_dice_commit import play


def never_bind(monkeypatch: pytest.MonkeyPatch) -> None:
    def commit(self: Handoff, walls: Any, cycle: int) -> str:
        if self._recorded is not None:
            self._revealed = self._recorded
        self.in_play = None
        self._nonce = f"{self.rng.getrandbits(128):032x}"
        # Drawn now, with the walls known; nothing bound for the next hand.
        self._dice = {**self._new_seed(), "committed_in": None}
        self._next_dice = None
        self.commitment = rules.commitment(walls, self._nonce, self.previous_commitment)
        self.ctl.hal.write("display", display_text(self.commitment))
        self.ctl.emit("walls.committed", cycle=cycle, commitment=self.commitment)
        return self.commitment

    monkeypatch.setattr(handoff_module.Handoff, "commit", commit)


def test_dice_never_bound_are_a_break_not_a_note(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture) -> None:
    never_bind(monkeypatch)
    path = tmp_path / "handoff.jsonl"
    play(path, hands=3)
    assert main(["verify-deals", str(path)]) == 1
    err = capsys.readouterr().err
    assert "line 2 " in err and "bound no dice seed" in err, err
