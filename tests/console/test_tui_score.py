"""Entering a hand's result at the console (F4): the form, the daemon's answer, the
refusals a player meets."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Label

from rules.scoring import winform
from simulator.harness.runner import Harness
from tests.console.test_tui_screens import SimConsole, screen_text, settle, shows
from tests.test_diagnosis import table_in_play

ENDED = ("opening", "hole_open", "closing")
# The example of docs/scoring.md: East's chow of T1 T2 T3 taken from the left.
WIN = {"seat": "0", "concealed": "W111 B234 J111 F2", "melds": "chow T1 *T2 T3 left",
       "win_tile": "F2", "flowers": ""}


def test_packed_and_spaced_tiles_read_the_same() -> None:
    assert winform.tiles("W111 B234", "x") == winform.tiles("W1 W1 W1 B2 B3 B4", "x")
    assert winform.tiles("w1,j3", "x") == ["W1", "J3"]


def test_melds_read_as_the_api_takes_them() -> None:
    assert winform.meld("chow T1 *T2 T3 left", 1) == {
        "type": "chow", "tiles": ["T1", "T2", "T3"], "from": "left", "claimed": "T2"}
    assert winform.meld("pung F3 across", 2) == {
        "type": "pung", "tiles": ["F3"] * 3, "from": "across", "claimed": "F3"}
    assert winform.meld("kong J3", 3) == {"type": "kong", "tiles": ["J3"] * 4, "from": None}


@pytest.mark.parametrize(("change", "problem"), [
    ({"seat": "7"}, "seat"),
    ({"concealed": "W111 X9"}, "X9 is not a tile"),
    ({"melds": "chow T1 T2 T3 left"}, "star"),
    ({"melds": "run T1 T2 T3"}, "chow, pung or kong"),
    ({"win_tile": "F2 F3"}, "exactly one"),
    ({"discarder": "behind"}, "left, across or right"),
])
def test_a_mistyped_form_says_what_is_wrong(change: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        winform.request(winform.WinForm(**{**WIN, **change}))


@pytest.mark.parametrize(("change", "problem"), [
    # A meld with a source and no tile crashed the console (IndexError).
    ({"melds": "pung across"}, "meld 1"),
    ({"melds": "kong left"}, "meld 1"),
    ({"melds": "pung"}, "meld 1"),
    # Codes outside the set were sent to the daemon, the form saying nothing.
    ({"concealed": "W1234567890 B234"}, "W0 is not a tile"),
    ({"concealed": "W111 B234 J4 F2"}, "J4 is not a tile"),
    ({"win_tile": "F5"}, "F5 is not a tile"),
    ({"win_tile": "W\u0661"}, "is not a tile"),          # an Arabic-Indic one
    ({"flowers": "\u0663"}, "flowers"),                  # an Arabic-Indic three
    ({"flowers": "H9"}, "H9 is not a tile"),
    # Only a kong is concealed: a chow or pung names whom it was taken from.
    ({"melds": "chow T1 *T2 T3"}, "meld 1: say whom"),
    ({"melds": "pung F3"}, "meld 1: say whom"),
])
def test_a_form_the_table_cannot_take_is_named_not_sent(change: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        winform.request(winform.WinForm(**{**WIN, **change}))


def test_full_width_characters_from_a_chinese_keyboard_read_as_typed() -> None:
    # A Chinese input method in full-width mode types Ｗ１ and ，: the same tiles.
    typed = {"concealed": "Ｗ１１１，Ｂ２３４　Ｊ１１１ Ｆ２", "win_tile": "Ｆ２", "flowers": "２"}
    wide = winform.request(winform.WinForm(**{**WIN, **typed}))
    plain = winform.request(winform.WinForm(**{**WIN, "flowers": "2"}))
    assert wide == plain


def _ended(harness: Harness) -> Harness:
    ctl = harness.ctl
    harness.clock.run_until(harness.clock.now() + 4000.0,
                            until=lambda: ctl.cycle.number == 1 and ctl.cycle.state in ENDED)
    assert ctl.cycle.state in ENDED
    return harness


async def _fill(pilot, app: SimConsole, fields: dict, flags: tuple[str, ...] = ()) -> None:
    await pilot.press("f4")
    await settle(pilot, lambda: bool(app.screen.query("#seat")))
    for name, value in fields.items():
        app.screen.query_one("#" + name, Input).value = value
    for name in flags:
        app.screen.query_one("#" + name, Checkbox).value = True
    app.screen.query_one("#flowers", Input).focus()
    await pilot.press("enter")


def test_a_win_entered_after_the_hand_is_scored_and_booked(tmp_path: Path) -> None:
    harness = _ended(table_in_play())

    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot, lambda: app._connected)
            await _fill(pilot, app, WIN, ("self_drawn",))
            await settle(pilot, shows(app, "win:", "payments: seat 0 +"))
    asyncio.run(scenario())
    session = harness.ctl.scoring.session
    assert session is not None and len(session.hands) == 1
    # Self-drawn: each of the three others pays the winner 8 + the total.
    scores = session.scores
    assert scores[0] > 0 and sum(scores) == 0 and len(set(scores[1:])) == 1


def test_a_draw_is_booked_and_a_second_entry_refused(tmp_path: Path) -> None:
    harness = _ended(table_in_play())

    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot, lambda: app._connected)
            await _fill(pilot, app, {"seat": "2"}, ("draw",))
            await settle(pilot, shows(app, "a drawn hand"))
            await _fill(pilot, app, {"seat": "1"}, ("draw",))
            await settle(pilot, shows(app, "score refused", "already scored"))
    asyncio.run(scenario())


def test_a_score_while_the_hand_is_in_play_is_refused_on_screen(tmp_path: Path) -> None:
    harness = table_in_play()

    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot, lambda: app._connected)
            await _fill(pilot, app, {"seat": "0"}, ("draw",))
            await settle(pilot, shows(app, "score refused", "a hand is in play"))
    asyncio.run(scenario())
    assert harness.ctl.scoring.session is None


def test_a_mistake_keeps_the_form_open_with_the_reason(tmp_path: Path) -> None:
    harness = table_in_play()

    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot, lambda: app._connected)
            await _fill(pilot, app, {**WIN, "win_tile": "Q9"})
            await settle(pilot, lambda: "Q9" in str(
                app.screen.query_one("#problem", Label).render()))
            assert "Q9 is not a tile" in screen_text(app)
            await pilot.press("escape")
            await settle(pilot, lambda: not app.screen.query("#seat"))
    asyncio.run(scenario())


def test_the_players_chinese_words_read_as_the_codes() -> None:
    spoken = winform.request(winform.WinForm(**{**WIN, "melds": "吃 T1 *T2 T3 上家；碰 F3 对家",
                                                "concealed": "W111 B234 F2",
                                                "discarder": "下家"}))
    typed = winform.request(winform.WinForm(**{**WIN, "melds": "chow T1 *T2 T3 left; pung F3 "
                                               "across", "concealed": "W111 B234 F2",
                                               "discarder": "right"}))
    assert spoken == typed


def test_the_dealer_sitting_is_sent_only_when_ticked() -> None:
    # Seed 001 (Tianjin): "在游戏开始后，玩家拿牌前，庄家可选择是否坐庄": the players'
    # choice per hand.
    sits = winform.request(winform.WinForm(**WIN, zuozhuang=True))
    assert sits["win"]["zuozhuang"] is True
    assert "zuozhuang" not in winform.request(winform.WinForm(**WIN))["win"]
    from firmware.console.tui import ScoreForm
    assert "zuozhuang" in [name for name, _text in ScoreForm.FLAGS]
