"""A hand record that conflicts with the one held is kept aside and shown, never
dropped in silence (before: `INSERT OR IGNORE` kept a forged first record, the venue
acked it, and the real one was gone: a day's play read 89,526 s instead of ~3,700 s)."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from tests.desk.test_store import NOON, record
from tests.venue.test_desk_login import login, run
from venue.desk.config import BrokerSection
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.link import BrokerLink
from venue.desk.tables.store import Store, day_of
from venue.desk.web.keys import STORE


def test_a_conflicting_record_is_kept_aside_told_and_the_same_one_again_is_not() -> None:
    store = Store()
    told: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    store.on_conflict.append(lambda table, held, aside: told.append((table, held, aside)))
    assert store.add("t1", record(1, duration=86000.0))     # the forged one came first
    assert not store.add("t1", record(1))                   # the table's own
    assert not store.add("t1", record(1))                   # re-sent: told once
    assert not store.add("t1", record(1, duration=86000.0))  # the held one again: no conflict
    [(table, held, aside)] = told
    assert table == "t1" and held["duration_s"] == 86000.0 and aside["duration_s"] == 300.0
    [shown] = store.conflicts(day_of(NOON), day_of(NOON))
    assert (shown["seq"], shown["held"]["duration_s"], shown["aside"]["duration_s"]) == (
        1, 86000.0, 300.0)


def test_the_link_says_so_and_the_usage_page_shows_both() -> None:
    lines: list[str] = []
    store = Store()
    BrokerLink(BrokerSection(), Fleet(), store, log=lines.append)
    store.add("t1", record(4, duration=86000.0))
    store.add("t1", record(4))
    assert any("t1 boot 1 seq 4" in line and "kept aside" in line for line in lines), lines

    async def test(client: TestClient, app: Any) -> None:
        app[STORE].add("t1", record(4, duration=86000.0))
        app[STORE].add("t1", record(4))
        await login(client)
        day = day_of(NOON)
        page = await (await client.get(f"/usage?from={day}&to={day}")).text()
        assert "conflicts" in page and "86000.0 s" in page and "300.0 s" in page
        body = await (await client.get(f"/api/usage?from={day}&to={day}")).json()
        assert [c["seq"] for c in body["conflicts"]] == [4]
    run(test)


def test_a_hand_varied_ten_thousand_ways_keeps_a_few_and_counts_the_rest() -> None:
    """Before: each variant of one hand's record was a row and a journal line (10,000
    sent, 10,000 of each). Now a few are kept aside and told, the rest counted."""
    from venue.desk.tables.store import CONFLICTS_PER_HAND

    lines: list[str] = []
    store = Store()
    BrokerLink(BrokerSection(), Fleet(), store, log=lines.append)
    store.add("t1", record(9))
    for n in range(10_000):
        store.add("t1", record(9, duration=1000.0 + n))
    store.add("t1", record(9, duration=1000.0))      # a kept one again: not counted
    shown = store.conflicts(day_of(NOON), day_of(NOON))
    assert len(shown) == CONFLICTS_PER_HAND and len(lines) == CONFLICTS_PER_HAND
    assert all(row["more"] == 10_000 - CONFLICTS_PER_HAND for row in shown)
    from venue.desk.web.usage import _conflicts
    assert f"and {10_000 - CONFLICTS_PER_HAND} more" in _conflicts(shown)
