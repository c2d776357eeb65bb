"""`mjtable agent` beside a real daemon, on a real Mosquitto with per-table ACLs."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.helpers.venue_brokers import (
    VENUE_PASSWORD,
    VENUE_USER,
    Mosquitto,
    mosquitto_missing,
    table_password,
)
from bench.helpers.venue_tables import ROOT, Daemon, wait_for
from tests.venue.test_homeassistant import check_home_assistant
from tests.venue.watch import VenueKey, Watcher

pytestmark = pytest.mark.skipif(mosquitto_missing() is not None,
                                reason=mosquitto_missing() or "")
KEEPALIVE_S = 5


def venue_section(broker: Mosquitto, table: str, key: VenueKey) -> str:
    return (f'\n[venue]\nbroker = "{broker.url}"\npassword = "{table_password(table)}"\n'
            f"keepalive_s = {KEEPALIVE_S}\nstatus_every_s = 0.2\nha_discovery = true\n"
            f'keys = {{ "{key.key_id}" = "{key.public_b64}" }}\n')


def start_agent(daemon: Daemon) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mjtable.cli", "agent", "--config", str(daemon.config),
         "--socket", str(daemon.socket)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
        env={**os.environ, "MJTABLE_LANG": "en"})


def stop_agent(agent: subprocess.Popen[bytes]) -> None:
    """SIGTERM, and SIGKILL if it is not gone in 10 s: the test's broker and daemon are
    stopped after it whatever happens (a loaded machine can be that slow)."""
    if agent.poll() is None:
        agent.terminate()
        try:
            agent.wait(10)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait(5)


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[Mosquitto, Daemon, VenueKey, Watcher]]:
    broker = Mosquitto(tmp_path / "broker", ["t1", "t2"]).start()
    key = VenueKey()
    daemon = Daemon(tmp_path, "t1", speed=20.0)
    # A tight drift margin on a jittery machine: timing.drift warnings, i.e. faults.
    text = daemon.config.read_text() + venue_section(broker, "t1", key)
    text = re.sub(r"(?m)^drift_margin\s*=.*$", "drift_margin = 0.05", text)
    text = re.sub(r"(?m)^timing_jitter\s*=.*$", "timing_jitter = 0.15", text)
    daemon.config.write_text(text)
    watcher = Watcher(broker.port, VENUE_USER, VENUE_PASSWORD)
    daemon.start()
    agent = start_agent(daemon)
    daemon.agent = agent    # type: ignore[attr-defined]
    try:
        yield broker, daemon, key, watcher
    finally:
        stop_agent(agent)
        watcher.close()
        daemon.stop()
        broker.stop()


def test_the_agent_publishes_birth_status_and_every_hand_once(venue) -> None:
    broker, _daemon, _key, watcher = venue
    wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"online"], 20, "online")
    check_home_assistant(broker, watcher)
    info = wait_for(lambda: watcher.json_on("mjt/v1/t1/info"), 5, "the birth")[-1]
    assert info["table"] == "t1" and info["schema"] == "mjtable.venue/1"
    wait_for(lambda: watcher.json_on("mjt/v1/t1/status"), 5, "a status")
    hands = wait_for(lambda: len(watcher.json_on("mjt/v1/t1/event/hand")) >= 2 and
                     watcher.json_on("mjt/v1/t1/event/hand"), 60, "two hands")
    assert [h["seq"] for h in hands[:2]] == [1, 2]
    assert all(h["table"] == "t1" and h["boot"] == 1 for h in hands)
    usage = wait_for(lambda: watcher.json_on("mjt/v1/t1/usage"), 5, "usage totals")[-1]
    assert usage["table"] == "t1"
    fault = wait_for(lambda: watcher.json_on("mjt/v1/t1/event/fault"), 60, "a fault")[0]
    # timing.drift as a rule; a loaded machine may trip another fault first.
    assert fault["table"] == "t1" and fault["code"] and fault["id"]
    assert fault["summary"] and fault["remedy"] and "cause" in fault
    assert watcher.json_on("mjt/v1/t1/faults")[0]["table"] == "t1"
    # Each fault of the retained list says when the table raised it (wall time): its age
    # on the dashboard survives a venue's or an agent's restart.
    listed = wait_for(lambda: [f for m in watcher.json_on("mjt/v1/t1/faults")
                               for f in m["active"]], 10, "a listed fault")
    assert all(isinstance(f["since"], float) and f["since"] <= time.time() for f in listed)


def test_commands_are_refused_unless_signed_fresh_unused_and_allowed(venue) -> None:
    _broker, daemon, key, watcher = venue
    wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"online"], 20, "online")
    other = VenueKey("venue-1")         # same key id, another key: a forgery
    good = key.command("t1", "identify")
    forged = dict(good, sig=other.command("t1", "identify")["sig"])
    replay = good
    sent = [
        ("forged", forged),
        ("expired", key.command("t1", "identify", issued=time.time() - 120, valid_s=60)),
        ("wrong key", VenueKey("venue-9").command("t1", "identify")),
        ("jog", key.command("t1", "jog", {"motor": "lid", "direction": "up", "seconds": 1})),
        ("clear", key.command("t1", "clear", {"fault": 1})),
        ("other table", key.command("t2", "identify")),
        ("good", good),
        ("replayed", replay),
    ]
    for _, envelope in sent:
        watcher.publish("mjt/v1/t1/cmd", json.dumps(envelope).encode())
    acks = wait_for(lambda: len(watcher.json_on("mjt/v1/t1/cmd/ack")) >= len(sent) and
                    watcher.json_on("mjt/v1/t1/cmd/ack"), 20, "every ack")
    # Each by its id (the venue's own commands go to the daemon before any junk, so
    # the order of the acks is not the order sent); the replay answers as the second.
    answered = [(a["id"], a["accepted"], a.get("why")) for a in acks]
    assert sorted(answered) == sorted([
        (forged["cmd"]["id"], False, "bad signature"),
        (sent[1][1]["cmd"]["id"], False, "command expired"),
        (sent[2][1]["cmd"]["id"], False, "unknown key id"),
        (sent[3][1]["cmd"]["id"], False, "command not allowed from the network"),
        (sent[4][1]["cmd"]["id"], False, "command not allowed from the network"),
        (sent[5][1]["cmd"]["id"], False, "command for another table"),
        (good["cmd"]["id"], True, None),
        (good["cmd"]["id"], False, "command id already used")])
    assert answered.index((good["cmd"]["id"], True, None)) < answered.index(
        (good["cmd"]["id"], False, "command id already used"))
    from bench.helpers.venue_tables import call
    rows = call(daemon.socket, "log", {"kind": "venue.refused"})["rows"]
    # The agent answers an expired or replayed command itself (the stateless half of the
    # check, and the ids it saw this session), so none of these reaches the daemon,
    # which still checks everything that does.
    assert rows == []


def test_a_table_cannot_publish_under_another_tables_topics(venue) -> None:
    broker, _daemon, key, watcher = venue
    intruder = Watcher(broker.port, "t2", table_password("t2"), topic="mjt/v1/t2/cmd")
    try:
        intruder.publish("mjt/v1/t1/status", b'{"state": "forged"}')
        intruder.publish("mjt/v1/t1/cmd", json.dumps(key.command("t1", "estop")).encode())
        intruder.publish("mjt/v1/t2/status", b'{"state": "mine"}')
        # Nor pass itself off as this table in the venue's Home Assistant.
        intruder.publish("homeassistant/sensor/t1/state/config", b'{"name": "forged"}')
        wait_for(lambda: watcher.on("mjt/v1/t2/status"), 5, "t2's own status")
        time.sleep(0.5)
        assert b'{"state": "forged"}' not in watcher.on("mjt/v1/t1/status")
        assert watcher.on("mjt/v1/t1/cmd") == []
        wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"online"], 20, "online")
        ha = Watcher(broker.port, VENUE_USER, VENUE_PASSWORD, topic="homeassistant/#")
        try:
            wait_for(lambda: ha.on("homeassistant/sensor/t1/state/config"), 10, "t1's config")
            time.sleep(0.3)
            assert b'{"name": "forged"}' not in ha.on("homeassistant/sensor/t1/state/config")
        finally:
            ha.close()
    finally:
        intruder.close()


def test_an_agent_killed_shows_offline_within_one_and_a_half_keepalives(venue) -> None:
    _broker, daemon, _key, watcher = venue
    wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"online"], 20, "online")
    killed = time.monotonic()
    os.kill(daemon.agent.pid, signal.SIGKILL)
    wait_for(lambda: watcher.on("mjt/v1/t1/avail")[-1:] == [b"offline"],
             1.5 * KEEPALIVE_S + 1, "offline")
    seen = [t for topic, p, _, t in watcher.messages if topic == "mjt/v1/t1/avail"
            and p == b"offline"][-1]
    assert seen - killed <= 1.5 * KEEPALIVE_S
