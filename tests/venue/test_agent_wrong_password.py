"""A wrong broker password is one clear line that names the user and where to fix it,
not `[code:135] Not authorized` once a second for ever."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.helpers.venue_brokers import Mosquitto, mosquitto_missing
from bench.helpers.venue_tables import ROOT, Daemon
from tests.venue.test_agent_mosquitto import stop_agent, venue_section
from tests.venue.watch import VenueKey

pytestmark = pytest.mark.skipif(mosquitto_missing() is not None,
                                reason=mosquitto_missing() or "")


def test_a_wrong_broker_password_is_one_clear_line(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker", ["t1"]).start()
    daemon = Daemon(tmp_path, "t1", speed=1.0)
    section = venue_section(broker, "t1", VenueKey())
    section = section.replace('password = "', 'password = "wrong-')
    daemon.config.write_text(daemon.config.read_text() + section)
    daemon.start()
    log = tmp_path / "agent.log"
    with log.open("wb") as out:
        agent = subprocess.Popen(
            [sys.executable, "-m", "mjtable.cli", "agent", "--config", str(daemon.config),
             "--socket", str(daemon.socket), "--phone", ""],
            stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
            env={**os.environ, "MJTABLE_LANG": "en"})
        try:
            deadline = time.monotonic() + 60
            while "refused" not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(5.0)             # the old agent said it again every second
        finally:
            stop_agent(agent)
            daemon.stop()
            broker.stop()
    lines = [line for line in log.read_text().splitlines()
             if "refused" in line or "[code:" in line]
    assert len(lines) == 1, lines
    assert "“t1”" in lines[0] and "password" in lines[0] and "[code:" not in lines[0]
