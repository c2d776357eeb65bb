"""What the simulated players take for a throw: the dice shown after a code on the display."""

from __future__ import annotations

from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.physics.players import SimPlayers
from simulator.scenario import Scenario


def _throwing() -> SimPlayers:
    players = Harness(load_config(), Scenario(seed=1, cycles=1)).players
    players.phase = "throwing"
    players.throws = []
    return players


def _show(players: SimPlayers, *shown: str) -> None:
    for value in shown:
        players._on_change("display", value)


def test_the_same_dice_back_after_a_code_are_no_new_throw() -> None:
    # E80 while the host was silent, then the host shows the dice it had shown.
    players = _throwing()
    _show(players, "--", "4-6", "E80", "4-6")
    assert players.throws == [[4, 6]]


def test_the_same_faces_after_a_code_over_the_spin_are_the_new_throw() -> None:
    # The second throw spun under a fault's code and landed on the first throw's faces
    # (fuzz 854525 run 100: the players waited for a throw the table had dealt on).
    players = _throwing()
    _show(players, "--", "4-6", "--", "E60", "4-6")
    assert players.throws == [[4, 6], [4, 6]]
