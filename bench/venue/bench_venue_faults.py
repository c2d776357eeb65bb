"""Fault to `event/fault`, end to end: real `mjtable run` + `mjtable agent` pairs.

Each table runs with a tight drift margin and jittery motions, so it warns
(timing.drift) often, and a technician's connection clears each warning as soon as
it is listed (one fault per cause: an active warning repeats, it is not raised
again). The venue's subscriber stamps each `event/fault` as it arrives;
the daemon's event log has the wall time the fault was raised (matched by the table
clock `t`). The agent's own stamp (`wall` in the payload) splits the path in two:
daemon → agent (the API socket's event stream) and agent → subscriber (the publish,
the broker, the subscriber). Printed: p50/p95/p99 of each over every fault, the
load average, and the agents' RSS and CPU.

    python -m bench.venue.bench_venue_faults [--tables 2] [--seconds 60] [--speed 20]
                                       [--broker mosquitto|amqtt] [--runs 3]
                                       [--own-machine]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from bench.helpers import children
from bench.helpers.venue_brokers import (
    VENUE_PASSWORD,
    VENUE_USER,
    Amqtt,
    Mosquitto,
    own_machine,
    table_password,
)
from bench.helpers.venue_tables import ROOT, Daemon, call, wait_for
from firmware.api.client import CLEAR, SUBSCRIBE, AsyncClient, ClientError

TECHNICIAN, TOKEN = "li", "bench-token-0123"


class Subscriber:
    """The venue: every event/fault with its arrival time (wall)."""

    def __init__(self, port: int, auth: bool) -> None:
        self.lock = threading.Lock()
        self.got: list[tuple[str, dict[str, Any], float]] = []
        self.online: set[str] = set()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="venue-faults")
        if auth:
            self.client.username_pw_set(VENUE_USER, VENUE_PASSWORD)
        self.client.on_connect = lambda c, *_: c.subscribe(
            [("mjt/v1/+/event/fault", 1), ("mjt/v1/+/avail", 1)])
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        now = time.time()
        table = message.topic.split("/")[2]
        with self.lock:
            if message.topic.endswith("/avail"):
                if message.payload == b"online":
                    self.online.add(table)
                return
            self.got.append((table, json.loads(message.payload), now))

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Clearer:
    """A technician at the table: clears each warning as it is raised (told by the event
    stream, not by polling the fault list), so the next one is a new fault. It speaks
    through the one client of the daemon (firmware/api/client.py), in a loop of its own."""

    def __init__(self, path: Path, technician: tuple[str, str] = (TECHNICIAN, TOKEN)) -> None:
        self.cleared = 0
        self.seen: dict[float, float] = {}    # fault's table time: when it came (wall)
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        self._clears: set[asyncio.Task[Any]] = set()
        self._client = AsyncClient(path, on_stream=self._on_stream)
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.thread = threading.Thread(target=self._loop.run_until_complete,
                                       args=(self._run(technician, ready),), daemon=True)
        self.thread.start()
        try:
            ready.result(10.0)      # ClientError when the daemon cannot be reached
        except BaseException:
            self.stop()
            raise

    async def _run(self, technician: tuple[str, str],
                   ready: concurrent.futures.Future[None]) -> None:
        try:
            await self._client.open()
            login = await self._client.login(technician)
            if not login.get("ok"):
                raise ClientError(f"login: {login.get('error')}")
            await self._client.request(SUBSCRIBE, {"streams": ["events"]})
        except BaseException as exc:
            ready.set_exception(exc)
            return
        ready.set_result(None)
        await self._stop.wait()
        await self._client.aclose()

    def _on_stream(self, message: dict[str, Any]) -> None:
        came = time.time()
        event = message.get("event") or {}
        if event.get("kind") != "fault":
            return
        self.seen[round(event.get("t", -1.0), 3)] = came
        if event.get("id") == "timing.drift":
            clear = self._loop.create_task(self._client.call(CLEAR, {"fault": "timing.drift"}))
            self._clears.add(clear)
            clear.add_done_callback(self._clears.discard)
            self.cleared += 1

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(5)
        self._loop.close()


def _usage(pid: int, started: float) -> dict[str, float]:
    rss = int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())[1])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return {"rss_mb": round(rss / 1024, 1),
            "cpu_percent": round(100 * cpu / (time.monotonic() - started), 2)}


def _quantiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None}
    ms = sorted(v * 1000 for v in values)

    def at(q: float) -> float:
        return round(ms[min(len(ms) - 1, int(len(ms) * q))], 1)
    return {"p50_ms": round(statistics.median(ms), 1), "p95_ms": at(0.95),
            "p99_ms": at(0.99), "max_ms": round(ms[-1], 1)}


def run_once(tables: int, seconds: float, speed: float, broker_name: str) -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="mjt-faults-"))
    names = [f"t{n}" for n in range(tables)]
    if broker_name == "mosquitto":
        broker: Any = Mosquitto(directory / "broker", names).start()
    else:
        broker = Amqtt(directory / "broker").start()
    auth = broker_name == "mosquitto"
    venue = Subscriber(broker.port, auth)
    daemons, agents = [], []
    load_before = os.getloadavg()
    try:
        for name in names:
            extra = f'\n[venue]\nbroker = "{broker.url}"\n'
            if auth:
                extra += f'password = "{table_password(name)}"\n'
            daemon = Daemon(directory, name, speed=speed, extra=extra)
            text = daemon.config.read_text()
            text = re.sub(r"(?m)^drift_margin\s*=.*$", "drift_margin = 0.05", text)
            text = re.sub(r"(?m)^timing_jitter\s*=.*$", "timing_jitter = 0.2", text)
            daemon.config.write_text(text)
            from firmware.api.auth import Technicians
            daemon.state.mkdir(parents=True, exist_ok=True)
            Technicians(daemon.state / "technicians.json").add(TECHNICIAN, TOKEN)
            daemons.append(daemon.start())
            agents.append((children.spawn(
                [sys.executable, "-m", "mjtable.cli", "agent", "--config",
                 str(daemon.config), "--socket", str(daemon.socket)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT),
                time.monotonic()))
        wait_for(lambda: venue.online >= set(names), 60, "every agent online")
        with venue.lock:
            venue.got.clear()
        started = time.time()
        clearers = [Clearer(daemon.socket) for daemon in daemons]
        time.sleep(seconds)
        for clearer in clearers:
            clearer.stop()
        seen = {(name, t): came for name, clearer in zip(names, clearers, strict=True)
                for t, came in clearer.seen.items()}
        time.sleep(2.0)         # the last faults in flight
        usage = [_usage(proc.pid, at) for proc, at in agents]
        walls: dict[tuple[str, float], float] = {}
        for name, daemon in zip(names, daemons, strict=True):
            rows = call(daemon.socket, "log", {"kind": "fault", "limit": 5000})["rows"]
            walls.update({(name, round(r["t"], 3)): r["wall"] for r in rows
                          if r.get("kind") == "fault" and r["wall"] >= started - 1})
    finally:
        for proc, _ in agents:
            children.stop(proc)
        for daemon in daemons:
            daemon.stop()
        venue.close()
        broker.stop()
    with venue.lock:
        got = list(venue.got)
    whole, to_agent, to_venue, to_bench = [], [], [], []
    for table, data, arrived in got:
        raised = walls.get((table, round(data.get("t") or -1.0, 3)))
        if raised is None:
            continue
        whole.append(arrived - raised)
        if (table, round(data["t"], 3)) in seen:
            to_bench.append(seen[(table, round(data["t"], 3))] - raised)
        to_agent.append(data["wall"] - raised)
        to_venue.append(arrived - data["wall"])
    return {"broker": broker_name, "tables": tables, "speed": speed,
            "faults": len(whole), "unmatched": len(got) - len(whole),
            "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in os.getloadavg()],
            "end_to_end": _quantiles(whole), "daemon_to_agent": _quantiles(to_agent),
            "agent_to_venue": _quantiles(to_venue),
            # The same stream read by a bare client in the bench: the daemon's share.
            "daemon_to_reader": _quantiles(to_bench), "agents": usage}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--broker", choices=("mosquitto", "amqtt"), default="mosquitto")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--own-machine", action="store_true",
                        help="run in a session of its own, its autogroup at nice -20 (root): "
                             "as on a table's own computer, not one shared with other jobs")
    args = parser.parse_args(argv)
    if args.own_machine:
        return own_machine("bench.venue.bench_venue_faults", [
            a for a in (sys.argv[1:] if argv is None else argv) if a != "--own-machine"])
    children.install()
    runs = []
    for _ in range(args.runs):
        figures = run_once(args.tables, args.seconds, args.speed, args.broker)
        print(json.dumps(figures), file=sys.stderr, flush=True)
        runs.append(figures)
    summary = {"runs": len(runs), "faults": [r["faults"] for r in runs]}
    for part in ("end_to_end", "daemon_to_agent", "agent_to_venue", "daemon_to_reader"):
        for q in ("p50_ms", "p95_ms", "p99_ms"):
            values = [r[part][q] for r in runs if r[part][q] is not None]
            summary[f"{part}_{q}_median"] = statistics.median(values) if values else None
    summary["load_1min"] = [r["load_after"][0] for r in runs]
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
