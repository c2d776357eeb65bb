"""The dashboard in headless Chromium: tiles painted, live updates from MQTT."""

from __future__ import annotations

import json
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest

from bench.desk_thread import DeskThread


def status(table: str, **fields: object) -> bytes:
    return json.dumps({"table": table, "state": "idle", "hand_in_play": False,
                       **fields}).encode()


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
    tables = [f"t{n}" for n in range(1, 13)]
    for table in tables:
        desk.feed(f"mjt/v1/{table}/avail", b"online")
        desk.feed(f"mjt/v1/{table}/status", status(table))
    page = browser.page
    page.goto(desk.url)
    tiles = page.locator("#grid .tile")
    assert tiles.count() == 12
    assert tiles.nth(0).get_attribute("data-table") == "t1"
    assert tiles.nth(11).get_attribute("data-table") == "t12"     # t12 after t2, not t1
    assert page.locator("[data-count=idle]").inner_text() == "12"
    page.locator("#live.on").wait_for(timeout=5000)
    # Through the broker, as a table's agent says it.
    client = publisher(desk.broker_url)
    try:
        client.publish("mjt/v1/t7/status", status("t7", hand_in_play=True, state="playing"),
                       qos=1, retain=True).wait_for_publish(5)
        page.locator('.tile[data-table="t7"].s-playing').wait_for(timeout=5000)
        assert page.locator('.tile[data-table="t7"] .state').inner_text() == "playing"
        assert page.locator("[data-count=playing]").inner_text() == "1"
    finally:
        client.loop_stop()
        client.disconnect()
