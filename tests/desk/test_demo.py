"""`mjtable venue --demo`: made-up tables that speak the real agent's payloads, Home
Assistant discovery too (the agent's own builders, venue/wire.py), readable by
the read-only demo user, and a believable fault rate."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from firmware.state.ledger import Ledger
from mjtable_core.clock import VirtualClock
from venue.desk.demo import FAULT_AFTER_HAND, first_move, table_names
from venue.wire import birth, status_message


def retained(port: int, topics: list[str], want: set[str]) -> dict[str, bytes]:
    """The retained messages the read-only demo user gets, once `want` have come."""
    got: dict[str, bytes] = {}
    lock = threading.Lock()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="demo-watch")
    client.username_pw_set("demo", "demo")

    def on_message(_c, _u, message) -> None:
        with lock:
            got[message.topic] = message.payload

    client.on_message = on_message
    client.on_connect = lambda c, *_: [c.subscribe(t, qos=1) for t in topics]
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with lock:
                if want <= got.keys():
                    return dict(got)
            time.sleep(0.05)
        raise AssertionError(f"missing: {sorted(want - got.keys())}")
    finally:
        client.loop_stop()
        client.disconnect()


def test_demo_tables_speak_the_agents_payloads_and_home_assistant(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mjtable.cli", "venue", "--demo", "2", "--listen",
         "127.0.0.1:0", "--state-dir", str(tmp_path)], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env={**os.environ, "MJTABLE_LANG": "en"}, text=True)
    try:
        proc.stdout.readline()
        port = int(proc.stdout.readline().split()[3].rsplit(":", 1)[1])
        base = "mjt/v1/t01/"
        got = retained(port, ["mjt/v1/#", "homeassistant/#"], {
            base + "info", base + "status", base + "usage", base + "faults",
            "homeassistant/sensor/t01/state/config",
            "homeassistant/binary_sensor/t01/problem/config"})
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    info, status, usage = (json.loads(got[base + leaf]) for leaf in ("info", "status", "usage"))
    # The same keys as the agent's messages of a real daemon.
    assert info.keys() == birth("t", "", "", "", None, None).keys()
    assert status.keys() == status_message("t", {}, 0.0).keys()
    assert status["gate"] is not None and set(status["gate"]) >= {"open", "left_min"}
    real = Ledger(tmp_path / "ledger.sqlite", "t", VirtualClock()).totals()
    assert usage.keys() == real.keys() and usage["table"] == "t01"
    config = json.loads(got["homeassistant/sensor/t01/state/config"])
    assert config["state_topic"] == base + "status" and config["unique_id"] == "mjtable_t01_state"


def test_a_demo_of_twenty_tables_does_not_look_like_a_venue_in_trouble() -> None:
    # Before: one table in five started faulted, and 12 % faulted after each hand:
    # five of twenty faulted at once.
    names = table_names(20)
    starts = [first_move(random.Random(seed)) for seed in range(len(names))]
    assert starts.count("fault") <= 2, starts
    assert FAULT_AFTER_HAND <= 0.05
