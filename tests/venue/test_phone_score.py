"""The phone console's score form at the HTTP level, against the daemon's own API on a
simulated table: a hand's result taken after the hand (the same params the console's
F4 form sends), refused while a hand is in play, refused without the page's CSRF token."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from firmware.api.auth import Technicians
from firmware.api.server import ApiServer
from mjtable_core.config import load_config
from rules.scoring import winform
from simulator.harness.runner import Harness
from tests.test_diagnosis import table_in_play
from venue.agent.phone.server import PhoneConsole

ENDED = ("opening", "hole_open", "closing")
# The example of docs/scoring.md, self-drawn, as the page's taps post it.
TAPPED = {"seat": 0, "concealed": ["W1", "W1", "W1", "B2", "B3", "B4", "J1", "J1", "J1",
                                   "F2"],
          "melds": [{"type": "chow", "tiles": ["T1", "T2", "T3"], "from": "left",
                     "claimed": "T2"}],
          "win_tile": ["F2"], "discarder": None, "flowers": 0, "self_drawn": True,
          "fourth_tile": False, "kong": False, "last_tile": False}
# The same hand typed into F4.
TYPED = winform.WinForm(seat="0", concealed="W111 B234 J111 F2", melds="chow T1 *T2 T3 left",
                        win_tile="F2", self_drawn=True)


@pytest.fixture
def short() -> Iterator[Path]:
    """A short folder: a Unix socket's path must fit in 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ps-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def ended() -> Harness:
    harness = table_in_play()
    ctl = harness.ctl
    harness.clock.run_until(harness.clock.now() + 4000.0,
                            until=lambda: ctl.cycle.number == 1 and ctl.cycle.state in ENDED)
    assert ctl.cycle.state in ENDED
    return harness


def post_score(harness: Harness, state: Path, body: dict[str, Any], csrf: bool = True,
               lang: str = "en") -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """The page's post, through the phone console, to the daemon's API on `harness`:
    the console's answer and the params the daemon was asked to score."""
    asked: list[dict[str, Any]] = []

    async def scenario() -> tuple[int, dict[str, Any]]:
        ctl = harness.ctl
        server = ApiServer(ctl, ctl.maintenance(), Technicians(state / "technicians.json"),
                           None)
        score = server.handlers["score"]

        async def noted(client: Any, params: dict[str, Any], who: str | None) -> Any:
            asked.append(params)
            return await score(client, params, who)

        server.handlers["score"] = noted
        await server.start_unix(state / "api.sock")
        console = PhoneConsole(load_config(), state / "api.sock", "127.0.0.1:0")
        await console.start()
        host, port = console.address or ("", 0)
        url = f"http://{host}:{port}"
        try:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True),
                                             headers={"Accept-Language": lang}) as http:
                async with http.get(url + "/") as page:
                    text = await page.text()
                boot = json.loads(re.search(r'id="boot">(.*?)</script>', text, re.S)[1])
                headers = {"X-CSRF-Token": boot["csrf"]} if csrf else {}
                async with http.post(url + "/api/score", json=body, headers=headers) as reply:
                    return reply.status, await reply.json()
        finally:
            await console.close()
            await server.close()
    status, answer = asyncio.run(scenario())
    return status, answer, asked


def test_a_win_tapped_in_after_the_hand_is_scored_as_f4_would(short: Path) -> None:
    harness = ended()
    status, answer, asked = post_score(harness, short, TAPPED)
    assert status == 200, answer
    assert asked == [winform.request(TYPED)]
    assert answer["lines"][0].startswith("win: ")
    assert any(line.startswith("payments: seat 0 +") for line in answer["lines"])
    assert any(line.startswith("next dealer: seat") for line in answer["lines"])
    session = harness.ctl.scoring.session
    assert session is not None and len(session.hands) == 1 and sum(session.scores) == 0


def test_the_answer_is_in_the_players_language(short: Path) -> None:
    status, answer, _asked = post_score(ended(), short, {"seat": 2, "draw": True},
                                        lang="zh-CN")
    assert status == 200, answer
    assert answer["lines"][0] == "荒牌：谁也不付"


def test_a_score_while_the_hand_is_in_play_is_refused(short: Path) -> None:
    harness = table_in_play()
    status, answer, asked = post_score(harness, short, TAPPED)
    assert status == 409
    assert answer["message"].startswith("score refused: a hand is in play")
    assert len(asked) == 1 and harness.ctl.scoring.session is None


def test_a_score_without_the_pages_csrf_token_never_reaches_the_daemon(short: Path) -> None:
    harness = ended()
    status, answer, asked = post_score(harness, short, TAPPED, csrf=False)
    assert status == 403 and answer["message"] == "missing or wrong CSRF token"
    assert asked == [] and harness.ctl.scoring.session is None


@pytest.mark.parametrize(("change", "problem"), [
    ({"seat": 7}, "seat"),
    ({"concealed": ["W1", "left"]}, "is not a tile"),
    ({"melds": [{"type": "run", "tiles": ["T1", "T2", "T3"], "from": "left"}]},
     "chow, pung or kong"),
])
def test_a_malformed_post_is_named_and_not_sent(short: Path, change: dict, problem: str) -> None:
    status, answer, asked = post_score(table_in_play(), short, {**TAPPED, **change})
    assert status == 400 and problem in answer["message"] and asked == []


def test_the_dealer_sitting_is_posted_as_f4_sends_it() -> None:
    # Seed 001 (Tianjin): "庄家可选择是否坐庄" - a box on the page, the same key F4 sends.
    from venue.agent.phone import score
    sent = score.params({**TAPPED, "zuozhuang": True})
    assert sent == winform.request(dataclasses.replace(TYPED, zuozhuang=True))
    assert "zuozhuang" not in score.params(TAPPED)["win"]
