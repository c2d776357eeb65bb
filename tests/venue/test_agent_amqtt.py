"""The agent on the embedded amqtt broker (MQTT 3.1.1 only: the agent falls back)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.helpers.venue_brokers import Amqtt, amqtt_missing
from bench.helpers.venue_tables import Daemon, wait_for
from tests.venue.test_agent_mosquitto import start_agent, stop_agent
from tests.venue.watch import VenueKey, Watcher

pytestmark = pytest.mark.skipif(amqtt_missing() is not None, reason=amqtt_missing() or "")


def test_the_agent_works_on_amqtt(tmp_path: Path) -> None:
    broker = Amqtt(tmp_path / "broker").start()
    key = VenueKey()
    daemon = Daemon(tmp_path, "t1", extra=(
        f'\n[venue]\nbroker = "{broker.url}"\nstatus_every_s = 0.2\n'
        f'keys = {{ "{key.key_id}" = "{key.public_b64}" }}\n'))
    watcher = Watcher(broker.port, "venue", "")
    agent = None
    try:
        daemon.start()
        agent = start_agent(daemon)
        wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"online"], 30, "online")
        hands = wait_for(lambda: watcher.json_on("mjt/v1/t1/event/hand"), 60, "a hand")
        assert hands[0]["seq"] == 1 and hands[0]["table"] == "t1"
        watcher.publish("mjt/v1/t1/cmd", json.dumps(key.command("t1", "identify")).encode())
        watcher.publish("mjt/v1/t1/cmd", json.dumps(key.command("t1", "jog")).encode())
        acks = wait_for(lambda: len(watcher.json_on("mjt/v1/t1/cmd/ack")) >= 2 and
                        watcher.json_on("mjt/v1/t1/cmd/ack"), 20, "two acks")
        assert [a["accepted"] for a in acks] == [True, False]
    finally:
        if agent is not None:
            stop_agent(agent)
        watcher.close()
        daemon.stop()
        broker.stop()
