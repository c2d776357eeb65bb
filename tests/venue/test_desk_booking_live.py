"""The booking API end to end: an integrator's POST, signed by the venue, through a
real Mosquitto to a real agent and daemon: the table's gate opens."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from bench.helpers.desk_thread import DeskThread
from bench.helpers.venue_brokers import VENUE_PASSWORD, VENUE_USER, Mosquitto, mosquitto_missing
from bench.helpers.venue_tables import Daemon, call, wait_for
from tests.venue.test_agent_mosquitto import start_agent, venue_section
from tests.venue.watch import VenueKey

pytestmark = pytest.mark.skipif(mosquitto_missing() is not None,
                                reason=mosquitto_missing() or "")


def post(url: str, body: dict[str, Any], key: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_enable_from_the_booking_api_opens_the_gate_of_a_real_table(tmp_path: Path,
                                                                   loopback_only) -> None:
    broker = Mosquitto(tmp_path / "broker", ["t1"]).start()
    key = VenueKey()
    key_file = tmp_path / "venue.key"
    key_file.write_text(base64.b64encode(key.private.private_bytes(
        Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode())
    daemon = Daemon(tmp_path, "t1", extra=venue_section(broker, "t1", key) + "gate = true\n")
    desk = DeskThread({"broker": {"username": VENUE_USER, "password": VENUE_PASSWORD,
                                  "key_file": str(key_file)},
                       "staff": {"argon2_memory_kib": 64, "argon2_passes": 1}},
                      broker_url=broker.url)
    agent = None
    try:
        daemon.start()
        agent = start_agent(daemon)
        desk.start()
        desk.connected()
        from venue.desk.web.login import INTEGRATORS
        api_key = desk.call(desk.desk.app[INTEGRATORS].issue, "miniapp")
        wait_for(lambda: call(daemon.socket, "log", {"kind": "build.held"})["rows"], 30,
                 "the build held at power-on")
        wait_for(lambda: desk.fleet.table("t1").online, 30, "the table online at the venue")
        url = f"{desk.url}api/tables/t1/enable"
        status, answer = post(url, {"for_s": 3600, "booking_id": "WX-7"}, api_key)
        assert status == 200, answer
        assert answer["ack"]["accepted"] is True
        assert answer["ack"]["result"]["open"] is True
        assert answer["ack"]["result"]["booking_id"] == "WX-7"
        wait_for(lambda: call(daemon.socket, "log", {"kind": "build.started"})["rows"], 30,
                 "the held build started once the gate opened")
        forged = api_key[:-4] + "AAAA"
        status, _answer = post(url, {"for_s": 3600, "booking_id": "WX-8"}, forged)
        assert status == 401
    finally:
        desk.stop()
        if agent is not None and agent.poll() is None:
            agent.terminate()
            agent.wait(10)
        daemon.stop()
        broker.stop()
