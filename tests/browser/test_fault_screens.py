"""A faulted table as staff see it, in Chinese on a phone and at the counter: the
tile says what is wrong (not only its code, not in a tooltip a phone never shows) with
the fault's true age after a venue restart; the Incidents page has the cause, the
remedy, who acknowledged, and no 确认 on an incident the table cleared itself."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from bench.helpers.desk_thread import DeskThread
from firmware.faults.kinds import CATALOGUE
from firmware.i18n import _, language
from tests.browser.conftest import WAIT_MS
from tests.browser.test_dashboard import online

PHONE = {"width": 390, "height": 844}


def zh(text: str) -> str:
    with language("zh_CN"):
        return _(text)


def listed(*faults: dict) -> bytes:
    return json.dumps({"table": "t", "active": list(faults)}).encode()


@pytest.fixture
def desk() -> Iterator[DeskThread]:
    server = DeskThread(broker=False).start()
    try:
        yield server
    finally:
        server.stop()


def test_a_faulted_tile_on_a_chinese_phone_says_what_is_wrong_and_its_true_age(
        desk, browser, shots):
    now = desk.fleet.now()
    online(desk, ["t1", "t2", "t3", "t4"])
    # What a venue started 15 minutes into the fault hears: the table's retained list,
    # in the venue's language (English here), with when the table raised it.
    desk.feed("mjt/v1/t2/faults", listed({
        "code": "E11", "id": "lid.not_lowering", "where": "lid", "active": True,
        "summary": "the lid did not reach its lower stop", "since": now - 905}))
    desk.feed("mjt/v1/t4/status", json.dumps({"estopped": True}).encode())
    page = browser.page
    page.set_viewport_size(PHONE)
    desk.login(page)
    page.goto(desk.url + "?lang=zh_CN")      # as a Chinese owner picks it
    tile = page.locator('.tile[data-table="t2"]')
    tile.locator(".summary").wait_for(timeout=WAIT_MS)
    summary = zh(CATALOGUE["lid.not_lowering"].summary)
    assert summary != CATALOGUE["lid.not_lowering"].summary
    assert tile.locator(".summary").inner_text() == summary
    assert tile.locator(".fault").inner_text().startswith("E11 · 15 分钟")
    assert page.locator('.tile[data-table="t4"] .summary').inner_text() == zh("e-stop pressed")
    box = tile.locator(".summary").bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(shots / "venue-fault-tile-phone-zh_CN.png"))


def test_the_incidents_page_in_chinese_has_cause_remedy_and_who_acknowledged(
        desk, browser, shots):
    now = desk.fleet.now()
    online(desk, ["t2", "t3"])
    desk.feed("mjt/v1/t2/faults", listed({
        "code": "E22", "id": "head.jam", "where": "side.2.head", "active": True,
        "summary": "the stacking head did not complete its turn", "since": now - 300}))
    desk.feed("mjt/v1/t3/faults", listed({
        "code": "W90", "id": "timing.drift", "where": "lid", "active": True,
        "summary": "a mechanism is slower than it used to be", "since": now - 60}))
    desk.feed("mjt/v1/t3/faults", listed())     # t3 cleared it by itself
    page = browser.page
    page.set_viewport_size({"width": 1100, "height": 700})
    desk.login(page)
    page.goto(desk.url + "incidents?lang=zh_CN")
    jam = page.locator("tr[data-incident]", has_text="E22")
    cleared = page.locator("tr[data-incident]", has_text="W90")
    jam.wait_for(timeout=WAIT_MS)
    with language("zh_CN"):
        words = CATALOGUE["head.jam"].texts("2")
    assert jam.locator(".summary").inner_text() == words["summary"]
    jam.locator("details summary").click()
    text = jam.inner_text()
    assert all(step in text for step in words["causes"] + words["remedy"]), text
    assert cleared.locator("button").count() == 0      # nothing to acknowledge
    assert zh("cleared before paging") in cleared.inner_text()
    page.screenshot(path=str(shots / "venue-incidents-zh_CN.png"), full_page=True)
    jam.locator("button", has_text="确认").click()
    page.wait_for_url(desk.url + "incidents")
    done = page.locator("tr[data-incident]", has_text="E22")
    assert "staff-test 已确认" in done.inner_text()
    assert done.locator("button").count() == 0
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(shots / "venue-incidents-phone-zh_CN.png"), full_page=True)
