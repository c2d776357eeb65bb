"""The counter without curl: staff open a table for a booking and a time, and close
it, from the dashboard; the usage page turns hours into money at the hourly price
staff set, and so does its CSV."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from bench.helpers.desk_thread import DeskThread
from tests.browser.conftest import WAIT_MS
from tests.browser.test_dashboard import online, publisher

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def desk() -> Iterator[DeskThread]:
    server = DeskThread().start()
    server.connected()
    try:
        yield server
    finally:
        server.stop()


def answering_table(desk: DeskThread, table: str) -> tuple[mqtt.Client, list[dict]]:
    """A table's agent on the broker: it answers each command on `cmd` as the daemon
    does (the gate's state), and keeps what it was sent."""
    client = publisher(desk.broker_url)
    heard: list[dict] = []

    def on_message(c, _userdata, message) -> None:
        envelope = json.loads(message.payload)
        cmd = envelope["cmd"]
        heard.append(cmd)
        opened = cmd["name"] == "enable"
        gate = {"open": opened, "booking_id": cmd["args"].get("booking_id") if opened
                else None, "left_s": cmd["args"].get("for_s") if opened else None}
        c.publish(f"mjt/v1/{table}/cmd/ack", json.dumps(
            {"id": cmd["id"], "accepted": True, "result": gate}).encode(), qos=1)

    client.on_message = on_message
    client.subscribe(f"mjt/v1/{table}/cmd", qos=1)
    return client, heard


def counter_at_t3(desk: DeskThread, browser: Any) -> tuple[Any, Any]:
    """The dashboard at phone size in Chinese, logged in, its counter on table t3."""
    page = browser.page
    page.set_viewport_size(PHONE)
    desk.login(page)
    page.goto(desk.url + "?lang=zh_CN")
    counter = page.locator("#counter")
    counter.locator("select[name=table]").select_option("t3")
    return page, counter


def test_staff_open_a_table_for_a_booking_and_close_it_from_the_dashboard(
        desk, browser, shots):
    online(desk, ["t1", "t2", "t3"])
    table, heard = answering_table(desk, "t3")
    try:
        page, counter = counter_at_t3(desk, browser)
        counter.locator("input[name=booking_id]").fill("王先生 8号")
        counter.locator("select[name=for_s]").select_option(str(3 * 3600))
        page.screenshot(path=str(shots / "venue-counter-phone-zh_CN.png"))
        counter.locator("button[value=enable]").click()
        counter.locator(".said", has_text="t3").wait_for(timeout=WAIT_MS)
        assert "王先生_8号" in counter.locator(".said").inner_text()
        page.locator('.tile[data-table="t3"].s-booked').wait_for(timeout=WAIT_MS)
        assert "王先生_8号" in page.locator('.tile[data-table="t3"] .state').inner_text()
        page.screenshot(path=str(shots / "venue-counter-opened-phone-zh_CN.png"))
        assert heard[-1]["name"] == "enable"
        assert heard[-1]["args"] == {"for_s": 3 * 3600, "booking_id": "王先生_8号"}
        counter.locator("button[value=disable]").click()
        page.locator('.tile[data-table="t3"].s-idle').wait_for(timeout=WAIT_MS)
        assert heard[-1]["name"] == "disable"
        # A table the venue never heard of: refused at once, said on the page.
        page.evaluate("""() => { const s = document.querySelector('#counter select');
                                 s.add(new Option('t99', 't99')); s.value = 't99'; }""")
        counter.locator("button[value=enable]").click()
        counter.locator(".said", has_text="t99").wait_for(timeout=5_000)
        assert len(heard) == 2
    finally:
        table.loop_stop()
        table.disconnect()


def test_the_usage_page_and_its_csv_turn_hours_into_money_at_the_hourly_price(
        desk, browser, shots):
    now = time.time()
    # Started seconds ago: the hands count on today even just after midnight.
    for seq, minutes in enumerate((90, 30, 60), start=1):
        desk.call(desk.store.add, "t2", {"table": "t2", "boot": 1, "seq": seq,
                                         "start": now - 10 * seq, "duration_s": minutes * 60,
                                         "booking_id": "B-7", "ended": "handoff"})
    page = browser.page
    page.set_viewport_size({"width": 1100, "height": 600})
    desk.login(page)
    page.goto(desk.url + "usage?lang=zh_CN")
    page.locator("input[name=price_per_hour]").fill("38.5")
    page.locator("form.price button").click()
    page.wait_for_url("**/usage?**")
    row = page.locator("table.usage tbody tr").first
    assert row.locator("td").nth(3).inner_text() == "3.00"      # hours played
    assert row.locator("td").nth(5).inner_text() == "115.50"    # 3 h × 38.50
    assert page.locator("input[name=price_per_hour]").input_value() == "38.50"
    page.screenshot(path=str(shots / "venue-usage-price-zh_CN.png"))
    csv = page.evaluate("""async () => (await (await fetch(
        document.querySelector('a[href^="/api/usage.csv"]').href)).text())""")
    head, line = csv.lstrip("\ufeff").splitlines()[:2]
    assert head.endswith("price_per_hour,amount") and line.endswith("38.50,115.50"), csv


def test_a_double_click_on_open_sends_one_command(desk, browser) -> None:
    # Staff at a busy counter double-click: the table is opened once, not twice (the
    # buttons wait for the answer of the first).
    online(desk, ["t1", "t2", "t3"])
    table, heard = answering_table(desk, "t3")
    try:
        page, counter = counter_at_t3(desk, browser)
        counter.locator("input[name=booking_id]").fill("B-9")
        counter.locator("button[value=enable]").dblclick()
        counter.locator(".said", has_text="B-9").wait_for(timeout=WAIT_MS)
        # A second command, if sent, was sent with the first: it is heard by now.
        page.wait_for_timeout(500)
        assert [c["name"] for c in heard] == ["enable"], heard
        assert counter.locator("button[value=enable]").is_enabled()
    finally:
        table.loop_stop()
        table.disconnect()


def test_a_booking_name_the_table_cannot_take_is_said_in_the_counters_words(
        desk, browser) -> None:
    # HTML or an emoji in the name: nothing is sent, and staff read what the name may
    # hold (the field's label), not the API's key `booking_id`.
    online(desk, ["t1", "t2", "t3"])
    table, heard = answering_table(desk, "t3")
    try:
        page, counter = counter_at_t3(desk, browser)
        for name in ("<b>王</b>", "李四 \U0001F004", "A&B"):
            counter.locator("input[name=booking_id]").fill(name)
            counter.locator("button[value=enable]").click()
            said = counter.locator(".said").inner_text()
            assert "预订人" in said and "booking_id" not in said, (name, said)
        page.wait_for_timeout(300)
        assert heard == []
    finally:
        table.loop_stop()
        table.disconnect()
