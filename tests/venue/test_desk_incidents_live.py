"""A table's fault through the venue's broker to a webhook, once; acknowledged from
the dashboard with the staff session's CSRF token."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from bench.helpers.desk_thread import DeskThread
from bench.helpers.venue_brokers import free_port
from bench.helpers.venue_tables import wait_for
from bench.helpers.webhook_stub import WebhookStub
from venue.desk.accounts.sessions import COOKIE, CSRF_HEADER

FAULT = {"table": "t4", "code": "E32", "id": "plate.stuck", "where": "side.2.plate",
         "active": True, "summary": "the wall lift plate did not complete its turn"}


@pytest.fixture
def venue(loopback_only) -> Iterator[tuple[DeskThread, WebhookStub]]:
    stub = WebhookStub(free_port())
    desk = DeskThread({"notify": {"urls": [stub.url], "debounce_s": 0.0},
                       "staff": {"argon2_memory_kib": 64, "argon2_passes": 1}})
    desk.start()
    desk.run(stub.start())
    desk.connected()
    try:
        yield desk, stub
    finally:
        desk.run(stub.stop())
        desk.stop()


def table(url: str) -> mqtt.Client:
    host, port = url.removeprefix("mqtt://").rsplit(":", 1)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-t4")
    client.connect(host, int(port))
    client.loop_start()
    return client


def fetch(desk: DeskThread, path: str, session: str, method: str = "GET",
          headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(f"{desk.url}{path.lstrip('/')}", method=method,
                                     data=b"{}" if method == "POST" else None,
                                     headers={"Cookie": f"{COOKIE}={session}",
                                              "Content-Type": "application/json",
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_fault_reaches_the_webhook_once_and_is_acknowledged_on_the_dashboard(
        venue) -> None:
    desk, stub = venue
    client = table(desk.broker_url)
    try:
        for _again in range(3):     # the event, then the retained list, re-sent
            client.publish("mjt/v1/t4/event/fault", json.dumps(FAULT), qos=1)
            client.publish("mjt/v1/t4/faults", json.dumps({"table": "t4", "active": [FAULT]}),
                           qos=1, retain=True).wait_for_publish(5)
        wait_for(lambda: stub.received, 10, "the page")
        time.sleep(0.5)
        assert len(stub.received) == 1
        body = stub.received[0][1]
        assert body["title"] == "Table t4: fault E32 (#1)"
        assert FAULT["summary"] in body["message"]
    finally:
        client.publish("mjt/v1/t4/faults", b"", qos=1, retain=True).wait_for_publish(5)
        client.loop_stop()
        client.disconnect()
    session, csrf = desk.session("li")
    status, listed = fetch(desk, "/api/incidents", session)
    assert status == 200 and listed["incidents"][0]["paged"] is not None
    assert fetch(desk, "/api/incidents/1/ack", session, "POST")[0] == 403
    status, done = fetch(desk, "/api/incidents/1/ack", session, "POST", {CSRF_HEADER: csrf})
    assert (status, done) == (200, {"id": 1, "acknowledged": True})
    incident = fetch(desk, "/api/incidents", session)[1]["incidents"][0]
    assert incident["acked_by"] == "li"
