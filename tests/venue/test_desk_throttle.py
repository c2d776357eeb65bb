"""Staff logins are limited per address before their hash, and live streams per
session and per address (venue/desk/accounts/throttle.py).

Before: logins under made-up names cost an argon2id hash each and were never limited
(the dashboard's p50 went from 1.5 to 61 ms); 1,000 streams from one session held
1,000 file descriptors."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from aiohttp.test_utils import TestClient

from tests.venue.test_desk_login import login, run
from venue.desk.accounts import throttle
from venue.desk.web.login import OFFICE, STAFF


def test_logins_from_one_address_are_limited_before_the_hash() -> None:
    async def test(client: TestClient, app: Any) -> None:
        staff = app[STAFF]
        hashed: list[str] = []
        verify = staff.verify

        def counted(name: str, password: str) -> str:
            hashed.append(name)
            return verify(name, password)
        staff.verify = counted
        form = await client.get("/login")
        token = re.search(r'name="csrf" value="([^"]+)"', await form.text()).group(1)
        statuses = []
        for n in range(40):
            answer = await client.post("/login", data={
                "name": f"made-up-{n}", "password": "guess-guess-guess", "csrf": token},
                allow_redirects=False)
            statuses.append(answer.status)
        assert len(hashed) == throttle.LOGINS_BURST, len(hashed)
        assert statuses.count(429) == 40 - throttle.LOGINS_BURST
        assert len(app[OFFICE].rows("staff.throttled", limit=100)) <= 5    # windowed
    run(test)


def test_live_streams_are_capped_per_session() -> None:
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        held, refused = [], 0
        for _n in range(throttle.STREAMS_PER_SESSION + 4):
            answer = await client.get("/events")
            if answer.status == 429:
                refused += 1
                answer.release()
            else:
                assert answer.status == 200
                await answer.content.readline()         # the stream is open
                held.append(answer)
        assert len(held) == throttle.STREAMS_PER_SESSION and refused == 4
        held.pop().close()
        for _n in range(50):
            again = await client.get("/events")
            if again.status == 200:
                break
            again.release()
            await asyncio.sleep(0.02)
        assert again.status == 200          # a closed page gives its slot back
        again.close()
        for answer in held:
            answer.close()
    run(test)


def test_stream_slots_per_address() -> None:
    slots = throttle.StreamSlots()
    with contextlib.ExitStack() as stack:
        rooms = [stack.enter_context(slots.slot(f"session-{n}", "192.168.1.5"))
                 for n in range(throttle.STREAMS_PER_ADDRESS + 1)]
        assert rooms.count(True) == throttle.STREAMS_PER_ADDRESS and rooms[-1] is False
        with slots.slot("another", "192.168.1.6") as room:
            assert room
    with slots.slot("session-0", "192.168.1.5") as room:
        assert room                         # all given back


def test_logins_are_counted_per_network_not_per_address() -> None:
    # A local user has all of 127.0.0.0/8 (a LAN guest a few addresses): before, 40
    # addresses had 40 hashes between them, one address 10.
    logins = throttle.LoginThrottle(now=lambda: 0.0)
    admitted = [logins.wait_s(f"127.0.0.{n}") == 0 for n in range(2, 42)]
    assert admitted.count(True) == throttle.LOGINS_BURST
    v6 = [logins.wait_s(f"fd00::{n:x}") == 0 for n in range(1, 41)]
    assert v6.count(True) == throttle.LOGINS_BURST
    assert logins.wait_s("192.168.7.20") == 0        # another network still may
