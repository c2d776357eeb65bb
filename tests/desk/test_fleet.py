"""What the owner sees of each table, from the tables' topics (venue/desk/tables/fleet.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from venue.desk.tables.fleet import Fleet
from venue.desk.tables.store import day_of


class Clock:
    def __init__(self, now: float = 1_764_600_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def send(fleet: Fleet, table: str, leaf: str, value: object) -> None:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    fleet.feed(f"mjt/v1/{table}/{leaf}", raw)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def fleet(clock: Clock) -> Fleet:
    fleet = Fleet(clock)
    send(fleet, "t1", "avail", b"online")
    send(fleet, "t1", "status", {"state": "idle", "hand_in_play": False})
    return fleet


def test_a_table_never_heard_online_is_offline(clock):
    fleet = Fleet(clock)
    send(fleet, "t9", "status", {"state": "idle"})
    assert fleet.tile("t9")["state"] == "offline"


@pytest.mark.parametrize(("status", "faults", "state"), [
    ({"hand_in_play": False}, [], "idle"),
    ({"hand_in_play": True}, [], "playing"),
    ({"hand_in_play": False, "gate": {"open": True, "booking_id": "B-7"}}, [], "booked"),
    ({"hand_in_play": True}, [{"code": "E20"}], "fault"),
    ({"hand_in_play": False, "estopped": True}, [], "fault"),
])
def test_the_tile_colour_follows_the_status_and_faults(fleet, status, faults, state):
    send(fleet, "t1", "status", status)
    send(fleet, "t1", "faults", {"table": "t1", "active": faults})
    assert fleet.tile("t1")["state"] == state


def test_offline_wins_over_everything_else(fleet):
    send(fleet, "t1", "faults", {"active": [{"code": "E20"}]})
    send(fleet, "t1", "avail", b"offline")
    assert fleet.tile("t1")["state"] == "offline"


def test_the_fault_age_counts_from_the_tables_own_stamp(fleet, clock):
    send(fleet, "t1", "event/fault", {"code": "E20", "wall": clock.now - 90})
    send(fleet, "t1", "faults", {"active": [{"code": "E20", "summary": "head jam"}]})
    tile = fleet.tile("t1")
    assert (tile["fault"], tile["fault_summary"]) == ("E20", "head jam")
    assert tile["fault_since"] == clock.now - 90
    send(fleet, "t1", "faults", {"active": []})
    assert fleet.tile("t1")["fault_since"] is None


def test_without_the_event_the_age_counts_from_when_the_venue_heard_it(fleet, clock):
    send(fleet, "t1", "faults", {"active": [{"code": "E11"}]})
    assert fleet.tile("t1")["fault_since"] == clock.now


def test_a_restarted_venue_counts_the_age_from_when_the_table_raised_the_fault(clock):
    # The retained list says when the table raised each fault: a venue (or an agent)
    # started later still shows the fault's true age, not "1 s".
    restarted = Fleet(clock)
    send(restarted, "t1", "avail", b"online")
    send(restarted, "t1", "faults", {"active": [
        {"code": "E11", "id": "lid.jam", "since": clock.now - 900},
        {"code": "W60", "id": "timing.drift", "since": clock.now - 30}]})
    assert restarted.tile("t1")["fault_since"] == clock.now - 900
    clock.now += 5
    send(restarted, "t1", "faults", {"active": [
        {"code": "E11", "id": "lid.jam", "since": clock.now - 905}]})
    assert restarted.tile("t1")["fault_since"] == clock.now - 905


def test_a_booking_holds_the_table_until_it_runs_out(fleet, clock):
    fleet.book("t1", "B-1", clock.now + 60)
    assert (fleet.tile("t1")["state"], fleet.tile("t1")["booking"]) == ("booked", "B-1")
    clock.now += 61
    assert (fleet.tile("t1")["state"], fleet.tile("t1")["booking"]) == ("idle", None)


def test_hands_today_count_only_todays_hands_and_roll_at_midnight(fleet, clock):
    fleet.count_hand("t1", {"start": clock.now - 400, "duration_s": 300.0})
    fleet.count_hand("t1", {"start": clock.now - 3 * 86400, "duration_s": 300.0})
    assert (fleet.tile("t1")["hands_today"], fleet.tile("t1")["play_s_today"]) == (1, 300.0)
    clock.now += 86400
    assert day_of(clock.now) != day_of(clock.now - 86400)
    assert fleet.tile("t1")["hands_today"] == 0


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", 7, None])
def test_only_a_web_address_opens_from_a_tile(fleet, url):
    send(fleet, "t1", "info", {"console_url": url})
    assert fleet.tile("t1")["console"] is None


def test_the_console_address_from_the_birth_is_the_tiles_link(fleet):
    send(fleet, "t1", "info", {"console_url": "http://10.0.0.21:8781/"})
    assert fleet.tile("t1")["console"] == "http://10.0.0.21:8781/"


@pytest.mark.parametrize(("topic", "raw"), [
    ("mjt/v1/t1/status", b"{not json"), ("mjt/v1/t1/status", b"[1,2]"),
    ("mjt/v1/t1/faults", b'{"active": "E20"}'), ("mjt/v2/t1/status", b"{}"),
    ("other/t1/status", b"{}"), ("mjt/v1//status", b"{}"), ("mjt/v1/t1", b"{}"),
])
def test_malformed_messages_change_nothing_and_raise_nothing(fleet, topic, raw):
    before = fleet.tiles()
    fleet.feed(topic, raw)
    assert fleet.tiles() == before


def test_tables_are_in_the_owners_order(clock):
    fleet = Fleet(clock)
    for table in ("t10", "t2", "t1", "bar"):
        send(fleet, table, "avail", b"online")
    assert fleet.ids() == ["bar", "t1", "t2", "t10"]


def test_a_watcher_gets_each_changed_table_once(fleet):
    async def watching() -> Any:
        watch = fleet.watch()
        for _ in range(3):
            send(fleet, "t2", "status", {"hand_in_play": True})
        send(fleet, "t1", "avail", b"offline")
        assert await watch.changed(1.0) == ["t1", "t2"]
        assert await watch.changed(0.01) == []
        watch.close()
        return watch
    watch = asyncio.run(watching())
    send(fleet, "t1", "avail", b"online")
    assert not watch.dirty


def test_the_tables_answer_to_enable_shows_its_booking(fleet, clock):
    send(fleet, "t1", "cmd/ack", {"id": "c1", "accepted": True, "result": {
        "enforced": True, "open": True, "left_s": 3600.0, "booking_id": "B-9",
        "reason": None}})
    assert (fleet.tile("t1")["state"], fleet.tile("t1")["booking"]) == ("booked", "B-9")
    send(fleet, "t1", "cmd/ack", {"id": "c2", "accepted": False, "why": "bad signature"})
    assert fleet.tile("t1")["state"] == "booked"
    send(fleet, "t1", "cmd/ack", {"id": "c3", "accepted": True, "result": {
        "enforced": True, "open": False, "left_s": None, "booking_id": "B-9",
        "reason": "closing time"}})
    assert fleet.tile("t1")["state"] == "idle"
