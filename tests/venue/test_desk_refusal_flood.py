"""A flood of refused requests is a few rows, not the desk's log: refusals are
windowed per cause and address (before: 901 rows/s of 4 KB from one client with a
made-up cookie, and the 100,000-row log turned over in ~111 s)."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from tests.venue.test_desk_login import run
from venue.desk.accounts.sessions import COOKIE
from venue.desk.office import REFUSALS_PER_KEY, REFUSALS_PER_WINDOW, Office
from venue.desk.web.login import OFFICE


def test_a_flood_of_made_up_cookies_writes_a_few_rows_and_counts_the_rest() -> None:
    async def test(client: TestClient, app: Any) -> None:
        office = app[OFFICE]
        before = office.one("SELECT count(*) AS n FROM log")["n"]
        path = "/api/tables/" + "x" * 4000
        for n in range(400):
            answer = await client.post(path, cookies={COOKIE: f"made-up-{n}"})
            assert answer.status == 401
        rows = office.all("SELECT kind, detail FROM log")[before:]
        assert len(rows) == REFUSALS_PER_KEY, rows[:3]
        assert all(len(r["detail"] or "") < 1000 for r in rows)   # the path as a digest
    run(test)


def test_the_window_closes_with_the_count_and_the_total_is_capped() -> None:
    now = [1000.0]
    office = Office(wall=lambda: now[0], echo=False)
    for n in range(2000):
        office.refused("session.refused", remote=f"192.0.2.{n % 200}", path="/")
    assert office.one("SELECT count(*) AS n FROM log")["n"] == REFUSALS_PER_WINDOW
    now[0] += 61.0
    office.flush_refusals()
    repeated = office.rows("session.refused.repeated", limit=1000)
    suppressed = office.rows("desk.rows.suppressed")
    counted = sum(r["detail"]["count"] for r in repeated) + sum(
        n for r in suppressed for n in r["detail"]["rows"].values())
    written = len(office.rows("session.refused", limit=1000))
    assert written + counted == 2000
