"""Tables per broker: synthetic MQTT tables replaying an agent's traffic.

Each synthetic table connects as its own user (Mosquitto: per-table ACL), publishes a
recorded `status` payload once a second and a hand record once a minute, both QoS 1,
each stamped with its send time; one venue subscriber takes everything. The figure is
publish-to-subscriber latency (p50, p99) and losses at each fleet size; the knee is
the first size where p99 passes 100 ms. Publishers and subscriber run in this one
process on the same machine as the broker: on a 2-core machine the load generator
takes its share of the CPU, so the knee is a floor for the broker alone.

    python -m bench.bench_venue_brokers [--sizes 100,250,500,1000] [--seconds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import children
from bench.mqtt_wire import WireClient
from bench.venue_brokers import (
    VENUE_PASSWORD,
    VENUE_USER,
    Amqtt,
    Mosquitto,
    amqtt_missing,
    mosquitto_missing,
    table_password,
)

KNEE_MS = 100.0
GIVE_UP_MS = 400.0      # a step this far past the knee ends the broker's series
# A status as `mjtable agent` publishes it (venue/agent/topics.py), and a hand record.
STATUS = {"state": "play", "hand_in_play": True, "estopped": False, "faults_active": 0,
          "display": "3-5", "test_mode": False, "gate": None}
HAND = {"boot": 3, "seq": 0, "cycle": 41, "start": 1764600000.123, "end": 1764600301.5,
        "duration_s": 301.4, "booking_id": "B-7", "variant": "mcr", "ended": "played"}


def _name(n: int) -> str:
    return f"s{n:04d}"


async def _table(n: int, port: int, auth: bool, connected: asyncio.Event,
                 counts: dict[str, int]) -> None:
    table = _name(n)
    client = WireClient()
    await client.connect(port, table, *((table, table_password(table)) if auth else ()))
    counts["connected"] += 1
    try:
        await connected.wait()
        await asyncio.sleep(random.random())           # spread the fleet over the second
        next_hand = time.monotonic() + random.random() * 60
        seq = 0
        while True:
            sent = time.time()
            client.publish(f"mjt/v1/{table}/status", json.dumps(
                {**STATUS, "table": table, "wall": sent}).encode(), qos=1)
            counts["sent"] += 1
            if time.monotonic() >= next_hand:
                seq += 1
                next_hand += 60
                client.publish(f"mjt/v1/{table}/event/hand", json.dumps(
                    {**HAND, "table": table, "seq": seq, "wall": sent}).encode(), qos=1)
                counts["sent"] += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.time() - sent)))
    finally:
        await client.close()


async def _step(port: int, auth: bool, tables: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    counts = {"connected": 0, "sent": 0}
    connected = asyncio.Event()
    venue = WireClient()
    await venue.connect(port, "venue-bench", *((VENUE_USER, VENUE_PASSWORD) if auth else ()))
    venue.on_publish = lambda topic, data: latencies.append(
        time.time() - json.loads(data)["wall"])
    await venue.subscribe(["mjt/v1/+/status", "mjt/v1/+/event/hand"], qos=1)
    start = time.monotonic()
    tasks = []
    for first in range(0, tables, 50):        # connect in batches
        tasks += [asyncio.create_task(_table(n, port, auth, connected, counts))
                  for n in range(first, min(tables, first + 50))]
        while counts["connected"] < min(tables, first + 50):
            await asyncio.sleep(0.02)
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed:
                raise failed[0].exception()     # type: ignore[misc]
    connect_s = time.monotonic() - start
    # Measure only the steady state: every table connected, then `seconds` of traffic.
    connected.set()
    await asyncio.sleep(seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(1.0)                  # the last messages in flight
    await venue.close()
    latencies.sort()
    ms = [x * 1000 for x in latencies]
    return {"tables": tables, "connect_s": round(connect_s, 2), "sent": counts["sent"],
            "received": len(ms),
            "p50_ms": round(statistics.median(ms), 2) if ms else None,
            "p99_ms": round(ms[int(len(ms) * 0.99) - 1], 2) if ms else None,
            "max_ms": round(ms[-1], 2) if ms else None}


def measure(sizes: list[int], seconds: float, brokers: list[str]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name in brokers:
        missing = mosquitto_missing() if name == "mosquitto" else amqtt_missing()
        if missing:
            figures[name] = {"skipped": missing}
            continue
        steps = []
        for size in sizes:
            with tempfile.TemporaryDirectory() as directory:
                broker = (Mosquitto(Path(directory), [_name(n) for n in range(size)])
                          if name == "mosquitto" else Amqtt(Path(directory)))
                broker.start()
                try:
                    step = asyncio.run(_step(broker.port, name == "mosquitto", size, seconds))
                except Exception as exc:  # a broker that falls over is a figure too
                    step = {"tables": size, "failed": f"{type(exc).__name__}: {exc}"}
                finally:
                    broker.stop()
            steps.append(step)
            print(json.dumps({name: step}), file=sys.stderr, flush=True)
            if step.get("failed") or (step.get("p99_ms") or 0) > GIVE_UP_MS:
                break                                 # well past the knee
        knee = next((s["tables"] for s in steps
                     if s.get("failed") or (s.get("p99_ms") or 0) > KNEE_MS), None)
        good = [s["tables"] for s in steps if not s.get("failed")
                and (s.get("p99_ms") or 1e9) <= KNEE_MS]
        figures[name] = {"steps": steps, "knee_tables": knee,
                         "max_tables_p99_under_100ms": max(good) if good else None}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,250,500,1000")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--brokers", default="mosquitto,amqtt")
    args = parser.parse_args(argv)
    children.install()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(json.dumps(measure(sizes, args.seconds, args.brokers.split(",")), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
