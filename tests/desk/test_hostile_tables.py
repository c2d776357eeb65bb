"""A broken or hostile table on the broker cannot blank the grid or deafen the venue
(venue/desk/tables/fleet.py, store.py, link.py)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from venue.desk.config import BrokerSection
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.link import BrokerLink
from venue.desk.tables.store import Store


def strict(value: Any) -> str:
    """JSON as a browser's JSON.parse takes it: NaN and Infinity are not JSON."""
    return json.dumps(value, allow_nan=False)


def test_nan_or_infinity_from_a_table_cannot_blank_every_tile():
    # Python's json reads NaN; the page's JSON.parse throws on it, and one table
    # would leave the whole grid (snapshot and stream) unpainted.
    fleet = Fleet()
    fleet.feed("mjt/v1/t1/avail", b"online")
    fleet.feed("mjt/v1/t1/faults", b'{"active": [{"id": "x", "code": "E1"}]}')
    fleet.feed("mjt/v1/t1/event/fault", b'{"id": "x", "code": "E1", "wall": NaN}')
    fleet.feed("mjt/v1/t1/status", b'{"display": Infinity, "hand_in_play": true}')
    fleet.feed("mjt/v1/t1/event/hand", b'{"seq": 1, "boot": 1, "start": %d, '
               b'"duration_s": -Infinity}' % int(time.time()))
    strict(fleet.tiles())


def test_a_record_the_store_cannot_hold_is_refused_not_raised():
    store = Store()
    now = time.time()
    for bad in ({"boot": 10**30, "seq": 1, "start": now},          # beyond SQLite's INTEGER
                {"boot": 1, "seq": 1, "start": 1e300},              # no day for that
                {"boot": 1, "seq": 1, "start": float("inf")},
                {"boot": float("inf"), "seq": 1, "start": now},
                {"boot": 1, "seq": 2, "start": now, "cycle": 10**30}):
        assert store.add("t1", bad) is False
    assert store.add("t1", {"boot": 1, "seq": 3, "start": now}) is True
    # A NaN where a number is optional: the hand is kept (it is billed), the NaN not.
    assert store.add("t1", {"boot": 1, "seq": 4, "start": now,
                            "duration_s": float("nan"), "end": float("inf")}) is True
    strict(store.usage("0000-01-01", "9999-12-31"))
    strict(store.records("0000-01-01", "9999-12-31"))


def test_a_hand_record_with_a_nan_is_kept_and_counted_without_it():
    fleet = Fleet()
    link = BrokerLink(BrokerSection(), fleet, Store(), log=lambda line: None)
    fleet.feed("mjt/v1/t1/avail", b"online")
    fleet.feed("mjt/v1/t1/event/hand", b'{"seq": 1, "boot": 1, "start": %d, '
               b'"duration_s": NaN}' % int(time.time()))
    assert link.store.ackable("t1", 0) == 1
    assert fleet.tile("t1")["hands_today"] == 1
    strict(fleet.tiles())


def test_deeply_nested_json_is_ignored_like_any_malformed_message():
    fleet = Fleet()
    fleet.feed("mjt/v1/t1/status", b"[" * 100_000)
    fleet.feed("mjt/v1/t1/event/hand", b'{"a":' * 100_000)
    assert fleet.tiles() == [] or all(t["state"] == "offline" for t in fleet.tiles())


class Message:
    def __init__(self, topic: str, payload: bytes) -> None:
        self.topic, self.payload = topic, payload


class Client:
    def __init__(self, messages: list[Message]) -> None:
        self._messages = messages

    @property
    def messages(self) -> Any:
        async def stream() -> Any:
            for message in self._messages:
                yield message
        return stream()


def test_one_message_that_breaks_a_part_of_the_venue_does_not_stop_the_others():
    # Before: the exception left the broker link's task, which never came back: the
    # venue went deaf for good, silently.
    fleet = Fleet()
    lines: list[str] = []
    link = BrokerLink(BrokerSection(), fleet, Store(), log=lines.append)

    def broken(table: str, fault: dict[str, Any]) -> None:
        raise RuntimeError("a notifier's bug")
    fleet.on_fault.append(broken)
    client = Client([Message("mjt/v1/t1/event/fault", b'{"id": "x"}'),
                     Message("mjt/v1/t1/avail", b"online")])
    asyncio.run(link._feed(client))      # type: ignore[arg-type]
    assert fleet.tile("t1")["state"] == "idle"
    assert any("t1" in line for line in lines)


def test_many_open_streams_build_each_changed_tile_once(monkeypatch):
    # Before: every stream built and encoded every changed tile for itself: 200 open
    # dashboards and 100 tables changing each second were 20,000 tiles a second, and
    # the venue's loop lagged by 100 ms to 1 s (bench/venue/bench_desk_sse.py).
    from venue.desk.accounts import throttle

    # Twenty pages of one session here: past its share of streams on a real desk.
    monkeypatch.setattr(throttle, "STREAMS_PER_SESSION", 20)
    from aiohttp.test_utils import TestClient, TestServer

    from tests.desk.test_app import fleet_of, log_in
    from venue.desk.config import parse
    from venue.desk.web.app import make_app

    fleet = fleet_of(5)
    built: list[str] = []
    tile = fleet.tile

    def counted(table: str) -> dict[str, Any]:
        built.append(table)
        return tile(table)
    fleet.tile = counted            # type: ignore[method-assign]

    async def main() -> list[int]:
        app = make_app(parse({}, "test.toml"), fleet)
        async with TestClient(TestServer(app)) as client:
            log_in(app, client)
            streams = [await client.get("/events") for _ in range(20)]

            async def until(response: Any, name: str, count: int) -> int:
                seen = 0
                while seen < count:
                    line = await response.content.readline()
                    seen += line.startswith(f"event: {name}".encode())
                return seen
            await asyncio.wait_for(asyncio.gather(*(until(s, "tiles", 1) for s in streams)), 5)
            built.clear()
            for n in range(1, 6):
                fleet.feed(f"mjt/v1/t{n}/status", b'{"hand_in_play": true}')
            got = await asyncio.wait_for(
                asyncio.gather(*(until(s, "tile", 5) for s in streams)), 5)
            for response in streams:
                response.close()
            return got
    assert asyncio.run(main()) == [5] * 20
    assert len(built) == 5
