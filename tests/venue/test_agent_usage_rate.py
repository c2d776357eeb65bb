"""An idle table's `usage` on a real Mosquitto: once at its birth, then only when a
counted value changes or a minute has passed (its powered time alone moves every
second, and was republished, retained, every 5 s: most of an idle table's traffic)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from bench.helpers.venue_brokers import VENUE_PASSWORD, VENUE_USER, Mosquitto, mosquitto_missing
from bench.helpers.venue_tables import Daemon, wait_for
from tests.venue.test_agent_mosquitto import start_agent, stop_agent, venue_section
from tests.venue.watch import VenueKey, Watcher

pytestmark = pytest.mark.skipif(mosquitto_missing() is not None,
                                reason=mosquitto_missing() or "")
WATCH_S = 16.0      # three of the old 5 s republishes


def test_an_idle_table_publishes_usage_at_most_once_a_minute(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker", ["t1"]).start()
    key = VenueKey()
    # The booking gate closed: the table is on, powered, and deals nothing.
    daemon = Daemon(tmp_path, "t1", speed=1.0)
    daemon.config.write_text(daemon.config.read_text() + venue_section(broker, "t1", key)
                             + "gate = true\n")
    watcher = Watcher(broker.port, VENUE_USER, VENUE_PASSWORD)
    daemon.start()
    agent = start_agent(daemon)
    try:
        wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"online"], 60, "online")
        wait_for(lambda: watcher.on("mjt/v1/t1/usage"), 10, "the birth's usage")
        seen = len(watcher.messages)
        time.sleep(WATCH_S)
        later = watcher.messages[seen:]
        by_topic = Counter(topic for topic, *_ in later)
        print(f"idle table, {WATCH_S:g} s: {dict(by_topic)}")
        assert by_topic["mjt/v1/t1/usage"] == 0, by_topic
        assert daemon.usage()["totals"]["hands"] == 0
    finally:
        stop_agent(agent)
        watcher.close()
        daemon.stop()
        broker.stop()
