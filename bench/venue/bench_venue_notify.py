"""Fault to notification: a fault raised in a real daemon, through its agent, a real
Mosquitto and `mjtable venue`'s incidents, to a JSON webhook (Apprise `json://`) on
127.0.0.1, with debounce off. Latency from the daemon's own wall stamp of the fault
(its event log) to the webhook's receipt. Goal: p95 under 1.5 s.

    python -m bench.venue.bench_venue_notify --tables 4 --seconds 60

The daemons run with a tight drift margin, so they warn `timing.drift` at one
mechanism after another: each new place is a new fault, hence a new incident.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.helpers import children
from bench.helpers.desk_thread import DeskThread
from bench.helpers.venue_brokers import (
    VENUE_PASSWORD,
    VENUE_USER,
    Mosquitto,
    free_port,
    mosquitto_missing,
    table_password,
)
from bench.helpers.venue_tables import ROOT, Daemon, call, wait_for
from bench.helpers.webhook_stub import WebhookStub

NUMBER = re.compile(r"\(#(\d+)\)")
SUMMARY = re.compile(r"bench fault (\d+)")


def agent(daemon: Daemon) -> Any:
    import subprocess
    import sys

    return children.spawn(
        [sys.executable, "-m", "mjtable.cli", "agent", "--config", str(daemon.config),
         "--socket", str(daemon.socket)], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, cwd=ROOT)


def synthetic_faults(port: int, stub: WebhookStub, count: int) -> dict[str, Any]:
    """`count` faults published as a table's agent would (event, then the retained
    list), one every 0.2 s, on the same broker: the venue's share of the latency with
    a sample large enough for a p95."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-faults")
    client.username_pw_set(VENUE_USER, VENUE_PASSWORD)
    client.connect("127.0.0.1", port)
    client.loop_start()
    before = len(stub.received)
    sent: dict[str, float] = {}
    active: list[dict[str, Any]] = []
    try:
        for n in range(count):
            fault = {"table": "syn", "code": "W90", "id": "timing.drift", "where": f"m{n}",
                     "active": True, "summary": f"bench fault {n}"}
            active.append(fault)
            sent[str(n)] = time.time()
            client.publish("mjt/v1/syn/event/fault", json.dumps(fault), qos=1)
            client.publish("mjt/v1/syn/faults", json.dumps({"table": "syn",
                                                            "active": active[-20:]}),
                           qos=1, retain=True)
            time.sleep(0.2)
        wait_for(lambda: len(stub.received) - before >= count, 30, "every page")
    except AssertionError:
        pass
    finally:
        client.publish("mjt/v1/syn/faults", b"", qos=1, retain=True).wait_for_publish(5)
        client.loop_stop()
        client.disconnect()
    latencies = []
    for got, body in stub.received[before:]:
        found = SUMMARY.search(body.get("message", ""))
        if found and found.group(1) in sent:
            latencies.append((got - sent[found.group(1)]) * 1000)
    return {"faults": count, "paged": len(latencies), **percentiles(latencies)}


def percentiles(values: list[float]) -> dict[str, Any]:
    values = sorted(values)
    if not values:
        return {"p50_ms": None, "p95_ms": None, "max_ms": None}
    return {"p50_ms": round(statistics.median(values), 1),
            "p95_ms": round(values[max(0, int(len(values) * 0.95) - 1)], 1),
            "max_ms": round(values[-1], 1)}


def measure(tables: int, seconds: float, speed: float, verbose: bool = False,
            faults: int = 0) -> dict[str, Any]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from venue.desk.web.login import OFFICE

    directory = Path(tempfile.mkdtemp(prefix="bench-notify-"))
    names = [f"t{n}" for n in range(1, tables + 1)]
    broker = Mosquitto(directory / "broker", names).start()
    public = base64.b64encode(Ed25519PrivateKey.generate().public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw)).decode()
    daemons, agents = [], []
    desk = stub = None
    try:
        for name in names:
            extra = (f'\n[venue]\nbroker = "{broker.url}"\npassword = "{table_password(name)}"'
                     f'\nkeys = {{ "venue-1" = "{public}" }}\n')
            daemon = Daemon(directory, name, speed=speed, extra=extra)
            text = daemon.config.read_text()
            text = re.sub(r"(?m)^drift_margin\s*=.*$", "drift_margin = 0.05", text)
            text = re.sub(r"(?m)^timing_jitter\s*=.*$", "timing_jitter = 0.15", text)
            daemon.config.write_text(text)
            daemons.append(daemon)
        stub = WebhookStub(free_port())
        desk = DeskThread({"broker": {"username": VENUE_USER, "password": VENUE_PASSWORD},
                           "notify": {"urls": [stub.url], "debounce_s": 0.0,
                                      "escalate_after_min": 0.0}},
                          broker_url=broker.url)
        desk.start()
        desk.run(stub.start())
        from venue.desk.web.incident_pages import NOTIFIER
        notifier = desk.desk.app[NOTIFIER]
        desk.connected()
        # The agents first: each waits for its daemon's socket, so it is on the broker
        # within a second of its table's start.
        agents.extend(agent(daemon) for daemon in daemons)
        online: dict[str, float] = {}
        watching = threading.Event()

        def watch() -> None:
            while not watching.is_set():
                for name in names:
                    if name not in online and desk.call(
                            lambda n=name: desk.fleet.table(n).online):
                        online[name] = time.time()
                time.sleep(0.05)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        started = time.time()
        for daemon in daemons:
            daemon.start()
        time.sleep(seconds)
        watching.set()
        watcher.join(5)
        # Every incident paged by now (or given up on).
        wait_for(lambda: desk.call(lambda: not notifier._sending), 20, "pages sent")
        incidents = {row["id"]: row for row in desk.call(
            desk.desk.app[OFFICE].all, "SELECT * FROM incidents")}
        raised: dict[tuple[str, str], list[float]] = {}
        for daemon in daemons:
            rows = call(daemon.socket, "log", {"kind": "fault", "limit": 5000})["rows"]
            for row in rows:
                key = (daemon.table, f"{row.get('id')}@{row.get('where')}")
                raised.setdefault(key, []).append(row["wall"])
        received = list(stub.received)
        synthetic = synthetic_faults(broker.port, stub, faults) if faults else None
    finally:
        for proc in agents:
            children.stop(proc)
        for daemon in daemons:
            daemon.stop()
        if desk is not None:
            if stub is not None:
                desk.run(stub.stop())
            desk.stop()
        broker.stop()
    latencies, unmatched, heard, sent, timeline = [], 0, [], [], []
    for got, body in received:
        number = NUMBER.search(body.get("title", ""))
        incident = incidents.get(int(number.group(1))) if number else None
        if incident is None or incident["table_id"] not in online:
            unmatched += 1
            continue
        # The raise that opened it: the last one at that place before the venue heard.
        walls = [w for w in raised.get((incident["table_id"], incident["fault_id"]), [])
                 if w <= incident["opened"]]
        if not walls:
            unmatched += 1
            continue
        wall = max(walls)
        if wall < online[incident["table_id"]]:
            # Raised before its agent was on the broker: it reaches the venue with the
            # agent's birth (the retained list), not as an event.
            unmatched += 1
            continue
        latencies.append((got - wall) * 1000)
        timeline.append((round(wall - started, 1), round((got - wall) * 1000)))
        heard.append((incident["opened"] - wall) * 1000)     # daemon to the venue
        sent.append((got - incident["opened"]) * 1000)       # the venue to the webhook
    latencies.sort()
    return {
        "tables": tables, "seconds": seconds,
        "fault_log_rows": sum(len(w) for w in raised.values()),
        "incidents": len(incidents), "notifications": len(received), "measured": len(latencies),
        "before_online": unmatched,
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(latencies[max(0, int(len(latencies) * 0.95) - 1)], 1)
        if latencies else None,
        "max_ms": round(latencies[-1], 1) if latencies else None,
        "to_venue_p50_ms": round(statistics.median(heard), 1) if heard else None,
        "to_venue_max_ms": round(max(heard), 1) if heard else None,
        "venue_to_webhook_p50_ms": round(statistics.median(sent), 1) if sent else None,
        "venue_to_webhook_max_ms": round(max(sent), 1) if sent else None,
        "goal_p95_ms": 1500,
        "timeline": sorted(timeline) if verbose else None,
        "synthetic": synthetic,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--speed", type=float, default=40.0)
    parser.add_argument("--synthetic", type=int, default=100, metavar="N",
                        help="then N faults from a synthetic table (0: none)")
    parser.add_argument("--timeline", action="store_true",
                        help="each fault's (seconds into the run, latency ms)")
    args = parser.parse_args(argv)
    missing = mosquitto_missing()
    if missing:
        print(json.dumps({"skipped": missing}))
        return 0
    children.install()
    print(json.dumps(measure(args.tables, args.seconds, args.speed, args.timeline,
                                args.synthetic), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
