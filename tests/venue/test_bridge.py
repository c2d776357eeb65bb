"""A venue's Mosquitto bridged to a chain's central one: every hand record arrives, also
across a restart of the central broker, and once by its key (docs/venue.md, "A chain":
QoS 1 may deliver a message twice across the restart; the central store keeps (table,
boot, seq) unique, so a second copy must be the same record)."""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from bench.helpers.venue_brokers import Mosquitto, mosquitto_missing, table_password
from bench.helpers.venue_tables import Daemon, wait_for
from tests.venue.test_agent_mosquitto import start_agent, stop_agent

pytestmark = pytest.mark.skipif(mosquitto_missing() is not None,
                                reason=mosquitto_missing() or "")
VENUE = "v042"


class Central:
    """The chain's billing subscriber: a persistent session, so nothing is missed while
    the central broker restarts."""

    def __init__(self, port: int) -> None:
        self.records: list[dict] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=f"billing-{uuid.uuid4().hex[:6]}",
                                  clean_session=False)
        self.client.username_pw_set("billing", "billing-pw")
        self.client.on_connect = lambda c, *_: c.subscribe(
            f"chain/{VENUE}/mjt/v1/+/event/hand", qos=1)
        self.client.on_message = lambda c, u, m: self.records.append(json.loads(m.payload))
        self.client.reconnect_delay_set(0.1, 0.5)
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_hand_records_cross_the_bridge_exactly_once(tmp_path: Path) -> None:
    central = Mosquitto(tmp_path / "central", [], users={VENUE: "bridge-pw",
                                                        "billing": "billing-pw"},
                        acl=f"user {VENUE}\ntopic readwrite chain/{VENUE}/#\n"
                            "user billing\ntopic read chain/#\n").start()
    bridge = (f"connection chain\naddress 127.0.0.1:{central.port}\n"
              f"remote_username {VENUE}\nremote_password bridge-pw\n"
              "cleansession false\nrestart_timeout 1\n"
              f'topic mjt/v1/+/event/# out 1 "" chain/{VENUE}/\n'
              f'topic mjt/v1/+/avail out 1 "" chain/{VENUE}/\n')
    venue = Mosquitto(tmp_path / "venue", ["t1"], extra=bridge).start()
    billing = Central(central.port)
    daemon = Daemon(tmp_path, "t1", extra=(
        f'\n[venue]\nbroker = "{venue.url}"\npassword = "{table_password("t1")}"\n'))
    agent = None
    try:
        daemon.start()
        agent = start_agent(daemon)
        wait_for(lambda: len(billing.records) >= 3, 60, "three hands at the chain")
        central.stop()                  # the chain's broker goes away for a while
        during = daemon.usage()["totals"]["last_seq"]
        wait_for(lambda: daemon.usage()["totals"]["last_seq"] >= during + 2, 60,
                 "two hands while the chain is down")
        central.start()
        last = daemon.usage()["totals"]["last_seq"]
        wait_for(lambda: {r["seq"] for r in billing.records} >= set(range(1, last + 1)),
                 60, "every hand at the chain")
    finally:
        if agent is not None:
            stop_agent(agent)
        billing.close()
        daemon.stop()
        venue.stop()
        central.stop()
    by_key: dict[tuple, list[dict]] = defaultdict(list)
    for record in billing.records:
        by_key[(record["table"], record["boot"], record["seq"])].append(record)
    # A redelivery is the same record, never another hand under the same key.
    assert [k for k, copies in by_key.items() if any(c != copies[0] for c in copies)] == []
    assert sorted(seq for _, _, seq in by_key) == list(range(1, len(by_key) + 1))
