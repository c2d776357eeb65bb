"""The dashboard in headless Chromium: tiles painted, live updates from MQTT, a click
to a table's console, reconnection, and the screenshots in docs/img/."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest

from bench.helpers.desk_thread import DeskThread
from tests.browser.conftest import WAIT_MS


def status(table: str, **fields: object) -> bytes:
    return json.dumps({"table": table, "state": "idle", "hand_in_play": False,
                       **fields}).encode()


def online(desk: DeskThread, tables: list[str]) -> None:
    for table in tables:
        desk.feed(f"mjt/v1/{table}/avail", b"online")
        desk.feed(f"mjt/v1/{table}/status", status(table))


@pytest.fixture
def desk() -> Iterator[DeskThread]:
    server = DeskThread().start()
    server.connected()
    try:
        yield server
    finally:
        server.stop()


def publisher(url: str) -> mqtt.Client:
    host, port = url.removeprefix("mqtt://").rsplit(":", 1)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-tables")
    client.connect(host, int(port))
    client.loop_start()
    return client


def test_the_dashboard_paints_every_table_and_follows_a_status_change(desk, browser):
    online(desk, [f"t{n}" for n in range(1, 13)])
    page = browser.page
    desk.login(page)
    page.goto(desk.url)
    tiles = page.locator("#grid .tile")
    assert tiles.count() == 12
    assert tiles.nth(0).get_attribute("data-table") == "t1"
    assert tiles.nth(11).get_attribute("data-table") == "t12"     # t12 after t2, not t1
    assert page.locator("[data-count=idle]").inner_text() == "12"
    page.locator("#live.on").wait_for(timeout=WAIT_MS)
    # Through the broker, as a table's agent says it.
    client = publisher(desk.broker_url)
    try:
        client.publish("mjt/v1/t7/status", status("t7", hand_in_play=True, state="playing"),
                       qos=1, retain=True).wait_for_publish(5)
        page.locator('.tile[data-table="t7"].s-playing').wait_for(timeout=WAIT_MS)
        assert page.locator('.tile[data-table="t7"] .state').inner_text() == "playing"
        assert page.locator("[data-count=playing]").inner_text() == "1"
        client.publish("mjt/v1/t3/faults", json.dumps(
            {"active": [{"code": "E20", "summary": "head jam"}]}).encode(), qos=1,
            retain=True).wait_for_publish(5)
        fault = page.locator('.tile[data-table="t3"].s-fault .fault')
        fault.wait_for(timeout=WAIT_MS)
        assert fault.inner_text().startswith("E20 · ")
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_click_on_a_tile_opens_that_tables_console(desk, browser):
    console = desk.url + "api/tables?table=t2"      # any page on loopback stands for it
    online(desk, ["t1", "t2"])
    desk.feed("mjt/v1/t2/info", json.dumps({"console_url": console}).encode())
    page = browser.page
    desk.login(page)
    page.goto(desk.url)
    assert page.locator('.tile[data-table="t1"]').get_attribute("href") is None
    with page.expect_popup() as opened:
        page.locator('.tile[data-table="t2"]').click()
    popup = opened.value
    popup.wait_for_load_state()
    assert popup.url == console
    popup.close()


def test_the_page_reconnects_by_itself_when_the_venue_comes_back(browser):
    first = DeskThread(broker=False).start()
    port = int(first.url.rsplit(":", 1)[1].strip("/"))
    online(first, ["t1"])
    page = browser.page
    first.login(page)
    page.goto(first.url)
    page.locator("#live.on").wait_for(timeout=WAIT_MS)
    first.stop()
    page.locator("#live.off").wait_for(timeout=WAIT_MS)
    again = DeskThread({"desk": {"listen": f"127.0.0.1:{port}"}}, broker=False).start()
    again.adopt(first.cookie)      # the same staff session (the venue's file kept it)
    try:
        online(again, ["t1", "t2"])
        page.locator('.tile[data-table="t2"]').wait_for(timeout=WAIT_MS)
        page.locator("#live.on").wait_for(timeout=WAIT_MS)
    finally:
        again.stop()


def varied(desk: DeskThread) -> None:
    """Twelve tables in every state the owner meets, for the screenshots."""
    now = desk.fleet.now()
    online(desk, [f"t{n:02d}" for n in range(1, 13)])
    for n in (1, 2, 5, 6, 9, 11):
        desk.feed(f"mjt/v1/t{n:02d}/status", status(f"t{n:02d}", hand_in_play=True))
    desk.feed("mjt/v1/t03/status", status("t03", gate={"open": True, "booking_id": "B-2031"}))
    desk.feed("mjt/v1/t07/event/fault", json.dumps({"code": "E20", "wall": now - 250}).encode())
    desk.feed("mjt/v1/t07/faults", json.dumps({"active": [{"code": "E20"}]}).encode())
    desk.feed("mjt/v1/t10/faults", json.dumps({"active": [{"code": "E11"}]}).encode())
    desk.feed("mjt/v1/t12/avail", b"offline")
    for n in range(1, 12):
        for hand in range(n % 5 + 3):
            desk.call(desk.fleet.count_hand, f"t{n:02d}",
                      {"start": now - 600 * (hand + 1), "duration_s": 540.0 + 20 * n})


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_screenshots_of_the_dashboard_in_both_languages(desk, browser, lang, shots):
    varied(desk)
    page = browser.page
    page.set_viewport_size({"width": 1100, "height": 560})
    desk.login(page)
    page.goto(f"{desk.url}?lang={lang}")       # as the owner picks it
    page.locator("#live.on").wait_for(timeout=WAIT_MS)
    assert page.locator("#grid .tile").count() == 12
    word = "故障" if lang == "zh_CN" else "fault"
    assert page.locator('.tile[data-table="t07"] .state').inner_text() == word
    shot = shots / f"venue-dashboard-{lang}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert time.time() - shot.stat().st_mtime < 60


def test_on_a_phone_the_grid_fits_the_screen(desk, browser):
    online(desk, [f"t{n}" for n in range(1, 31)])
    page = browser.page
    page.set_viewport_size({"width": 360, "height": 740})
    desk.login(page)
    page.goto(desk.url)
    assert page.locator("#grid .tile").count() == 30
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    box = page.locator(".tile").first.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44      # a finger's target
