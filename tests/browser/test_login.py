"""Staff login in a real browser: the form, the session cookie it sets, the incidents
page and its acknowledge button (a POST carrying the session's CSRF token)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from bench.helpers.desk_thread import DeskThread
from venue.desk.web.login import STAFF

PASSWORD = "counter-password-1"


@pytest.fixture
def desk() -> Iterator[DeskThread]:
    server = DeskThread({"staff": {"argon2_memory_kib": 64, "argon2_passes": 1}},
                        broker=False).start()
    server.call(server.desk.app[STAFF].add, "王姐", PASSWORD)
    try:
        yield server
    finally:
        server.stop()


def test_staff_log_in_see_an_incident_and_acknowledge_it(desk, browser):
    desk.feed("mjt/v1/t5/avail", b"online")
    fault = {"code": "E11", "id": "lid.not_lowering", "where": "motor.lid", "active": True,
             "summary": "the lid did not reach its lower stop"}
    desk.feed("mjt/v1/t5/event/fault", json.dumps(fault).encode())
    page = browser.page
    page.goto(desk.url + "incidents")
    assert "/login?next=" in page.url               # sent to log in first
    page.fill("#name", "王姐")
    page.fill("#password", "wrong-password-1")
    page.click("button[type=submit]")
    assert page.locator("[role=alert]").inner_text() == "wrong name or password"
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(desk.url + "incidents")
    cookie = next(c for c in page.context.cookies() if c["name"] == "mjt_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    row = page.locator("tr[data-incident]")
    assert row.count() == 1 and "t5" in row.inner_text() and "E11" in row.inner_text()
    row.locator("button").click()
    page.wait_for_url(desk.url + "incidents")
    assert "acknowledged by 王姐" in page.locator("tr[data-incident]").inner_text()
