"""The phone console counts wrong tokens per phone, below the daemon's lockout of a
name: before, five wrong tokens from any phone (every phone is the agent's one uid to
the daemon) kept 李师傅 out of every phone."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.venue.test_phone_hostile import TOKEN, against_a_table, page, phone
from venue.agent.phone import lockout
from venue.agent.phone.server import PhoneConsole


@pytest.fixture
def short() -> Iterator[Path]:
    """A short folder: a Unix socket's path must fit in 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ph-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_wrong_tokens_from_one_phone_lock_that_phone_not_the_name(short: Path) -> None:
    answers: dict[str, list[int]] = {}

    async def scenario(_console: PhoneConsole, url: str) -> None:
        async def login(http: aiohttp.ClientSession, csrf: str, token: str) -> int:
            async with http.post(url + "/api/login", headers={"X-CSRF-Token": csrf},
                                 json={"name": "li", "token": token}) as reply:
                return reply.status

        async with phone() as attacker:
            csrf = await page(attacker, url)
            answers["guesses"] = [await login(attacker, csrf, f"guess-{n}-0123")
                                  for n in range(8)]
            # A new page (a new session) on the same phone: still that phone.
            csrf = await page(attacker, url)
            answers["again"] = [await login(attacker, csrf, "guess-9-0123")]
        async with phone("127.0.0.2") as li:        # 李师傅's own phone
            csrf = await page(li, url)
            answers["li"] = [await login(li, csrf, TOKEN)]

    against_a_table(short, scenario)
    # Three checked by the daemon (the session's share), then refused here.
    assert answers["guesses"][:lockout.PER_SESSION] == [403] * lockout.PER_SESSION
    assert set(answers["guesses"][lockout.PER_SESSION:]) == {429}, answers
    assert answers["again"] in ([403], [429])
    assert answers["li"] == [200], answers


def test_guesses_sent_at_once_are_counted_before_they_are_checked() -> None:
    now = [0.0]
    lock = lockout.PhoneLockout(lambda: now[0])
    let_in = [lock.begin("192.168.1.9", f"s{n}") for n in range(10)]
    assert let_in.count(0.0) == lockout.PER_ADDRESS
    for n in range(10):
        if let_in[n] == 0.0:
            lock.end("192.168.1.9", f"s{n}", wrong=True)
    assert lock.begin("192.168.1.9", "s99") > 200
    assert lock.begin("192.168.1.10", "s100") == 0.0       # another phone
    now[0] += lockout.LOCK_S + 1
    assert lock.begin("192.168.1.9", "s101") == 0.0
