"""A venue on one broker: real `mjtable run` + `mjtable agent` pairs on the simulator.

Plays until the fleet has dealt `--hands` hands while the venue goes through a broker
restart, an agent kill -9, a daemon kill -9 during a hand and a venue-side restart,
then checks every table's ledger against what the venue stored, by (table, boot, seq):
lost and duplicated records. The venue keeps each (table, boot, seq) once and
acknowledges, signed, the highest sequence it holds without a gap. Also measured:
how long after an agent's kill -9 the broker says `offline` (keepalive 5 s), fault to
`event/fault` latency end to end (daemon's event log wall stamp to the venue's
receipt; table 0 runs with a tight drift margin so it warns often), and each agent's
RSS and CPU. Fault latency is given over every fault and over those raised outside
the disruptions (from each one's start to 5 s after the venue is whole again) and
before table 0's agent is first online: a fault raised while the broker is down waits
for it, as it should.

`--broker amqtt`: the embedded broker (anonymous, no ACLs, nothing persisted across
its restart: the agents re-send what stays unacknowledged, RESEND_S).

    python -m bench.venue.bench_venue_fleet [--tables 6] [--hands 1000] [--speed 100]
                                      [--broker mosquitto|amqtt]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from bench.helpers import children
from bench.helpers.venue_brokers import VENUE_PASSWORD, VENUE_USER, Amqtt, Mosquitto, table_password
from bench.helpers.venue_tables import ROOT, Daemon, call, wait_for
from venue.signing import sign

KEEPALIVE_S = 5
KEY_ID = "venue-bench"


class Venue:
    """The venue's store: hand records by (table, boot, seq), acknowledged signed."""

    def __init__(self, port: int, key: Ed25519PrivateKey) -> None:
        self.port = port
        self.key = key
        self.lock = threading.Lock()
        self.store: dict[tuple[str, int, int], dict[str, Any]] = {}
        self.deliveries = 0
        self.faults: list[tuple[str, float, float]] = []     # table, t, received (wall)
        self.avail: list[tuple[str, bytes, float]] = []
        self.online_wall: dict[str, float] = {}     # each table's first online (wall)
        self.acked: dict[str, int] = {}
        self.client = self._connect()

    def _connect(self) -> mqtt.Client:
        # A persistent session: what arrives while the venue restarts waits at the broker.
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="venue-store",
                             clean_session=False)
        client.username_pw_set(VENUE_USER, VENUE_PASSWORD)
        client.reconnect_delay_set(0.1, 1.0)
        client.on_connect = lambda c, *_: c.subscribe(
            [("mjt/v1/+/event/#", 1), ("mjt/v1/+/avail", 1)])
        client.on_message = self._on_message
        client.connect("127.0.0.1", self.port, keepalive=30)
        client.loop_start()
        return client

    def restart(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
        time.sleep(1.0)
        self.client = self._connect()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        now = time.time()
        table = message.topic.split("/")[2]
        if message.topic.endswith("/avail"):
            with self.lock:
                self.avail.append((table, message.payload, time.monotonic()))
                if message.payload == b"online":
                    self.online_wall.setdefault(table, now)
            return
        data = json.loads(message.payload)
        with self.lock:
            if message.topic.endswith("/event/hand"):
                self.deliveries += 1
                self.store.setdefault((data["table"], data["boot"], data["seq"]), data)
            elif message.topic.endswith("/event/fault"):
                self.faults.append((table, data.get("t"), now))

    def acknowledge(self) -> None:
        """For each table, the highest sequence held with every lower one."""
        with self.lock:
            seqs: dict[str, set[int]] = {}
            for table, _, seq in self.store:
                seqs.setdefault(table, set()).add(seq)
        for table, held in seqs.items():
            top = 0
            while top + 1 in held:
                top += 1
            if top > self.acked.get(table, 0):
                now = time.time()
                envelope = sign(self.key, {"id": uuid.uuid4().hex, "table": table,
                                           "name": "usage_ack", "args": {"seq": top},
                                           "key": KEY_ID, "issued": now,
                                           "expires": now + 60})
                self.client.publish(f"mjt/v1/{table}/cmd", json.dumps(envelope), qos=1)
                self.acked[table] = top

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Pair:
    def __init__(self, directory: Path, n: int, broker: Any, speed: float,
                 public_b64: str) -> None:
        self.table = f"t{n}"
        extra = (f'\n[venue]\nbroker = "{broker.url}"\npassword = "{table_password(self.table)}"'
                 f'\nkeepalive_s = {KEEPALIVE_S}\nkeys = {{ "{KEY_ID}" = "{public_b64}" }}\n')
        self.daemon = Daemon(directory, self.table, speed=speed, extra=extra)
        if n == 0:      # warns timing.drift often: the fault latency figure
            text = self.daemon.config.read_text()
            text = re.sub(r"(?m)^drift_margin\s*=.*$", "drift_margin = 0.05", text)
            text = re.sub(r"(?m)^timing_jitter\s*=.*$", "timing_jitter = 0.1", text)
            self.daemon.config.write_text(text)
        self.agent: Any = None
        self.cpu_s = 0.0     # of agents killed before the end

    def start(self) -> None:
        self.daemon.start()
        self.start_agent()

    def start_agent(self) -> None:
        import subprocess
        self.agent = children.spawn(
            [sys.executable, "-m", "mjtable.cli", "agent", "--config",
             str(self.daemon.config), "--socket", str(self.daemon.socket)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        self.agent_started = time.monotonic()

    def kill_agent(self) -> None:
        self.agent.send_signal(signal.SIGKILL)
        self.agent.wait(10)

    def agent_usage(self) -> dict[str, float]:
        pid = self.agent.pid
        rss = int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())[1])
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        import os
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return {"rss_mb": round(rss / 1024, 1),
                "cpu_percent": round(100 * cpu / (time.monotonic() - self.agent_started), 2)}

    def stop(self) -> None:
        import subprocess
        if self.agent is not None and self.agent.poll() is None:
            self.agent.terminate()
            try:
                self.agent.wait(20)
            except subprocess.TimeoutExpired:
                self.agent.kill()
                self.agent.wait(5)
        self.daemon.stop()


def _total_hands(pairs: list[Pair]) -> int:
    total = 0
    for pair in pairs:
        with contextlib.suppress(OSError, AssertionError, ValueError):
            total += pair.daemon.usage()["totals"]["last_seq"]
    return total


def measure(tables: int, hands: int, speed: float, broker_name: str = "mosquitto",
            ) -> dict[str, Any]:
    key = Ed25519PrivateKey.generate()
    import base64
    public_b64 = base64.b64encode(key.public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw)).decode()
    directory = Path(tempfile.mkdtemp(prefix="mjt-fleet-"))
    broker: Any = (Mosquitto(directory / "broker", [f"t{n}" for n in range(tables)])
                   if broker_name == "mosquitto" else Amqtt(directory / "broker")).start()
    venue = Venue(broker.port, key)
    pairs = [Pair(directory, n, broker, speed, public_b64) for n in range(tables)]
    events: list[str] = []
    figures: dict[str, Any] = {"tables": tables, "speed": speed, "broker": broker_name}
    windows: list[tuple[float, float]] = []     # disruptions, wall time
    start = time.monotonic()
    restarted_at = start
    try:
        for pair in pairs:
            pair.start()
        disruptions = [
            (0.2, "broker restart"), (0.4, "agent kill -9"),
            (0.6, "daemon kill -9 during a hand"), (0.8, "venue restart")]
        while True:
            done = _total_hands(pairs)
            venue.acknowledge()
            if disruptions and done >= disruptions[0][0] * hands:
                _, what = disruptions.pop(0)
                events.append(f"{what} at {done} hands")
                began = time.time()
                if what == "broker restart":
                    broker.stop()
                    time.sleep(2.0)
                    broker.start()
                    restarted_at = time.monotonic()
                elif what == "agent kill -9":
                    victim = pairs[-1]
                    # Online since the broker's restart: connected now, with its will.
                    wait_for(lambda v=victim, r=restarted_at: any(
                        t == v.table and p == b"online" and at > r
                        for t, p, at in venue.avail), 60, "online")
                    killed = time.monotonic()
                    victim.cpu_s = 0
                    victim.kill_agent()
                    wait_for(lambda v=victim, k=killed: any(
                        t == v.table and p == b"offline" and at > k
                        for t, p, at in venue.avail),
                             3 * KEEPALIVE_S, "offline")
                    seen = min(at for t, p, at in venue.avail
                               if t == victim.table and p == b"offline" and at > killed)
                    figures["offline_after_kill_s"] = round(seen - killed, 2)
                    figures["offline_limit_s"] = 1.5 * KEEPALIVE_S
                    victim.start_agent()
                elif what.startswith("daemon"):
                    victim = pairs[1 % tables]
                    wait_for(lambda v=victim: v.daemon.usage()["totals"]["in_hand"], 30,
                             "a hand")
                    victim.daemon.kill()
                    victim.daemon.start()
                else:
                    venue.restart()
                windows.append((began, time.time() + 5.0))
            if done >= hands:
                break
            time.sleep(0.5)
        play_s = time.monotonic() - start
        usages = {pair.table: pair.agent_usage() for pair in pairs}
        # Let the last records and acks through, then compare ledgers with the store.
        ledgers: dict[tuple[str, int, int], dict[str, Any]] = {}

        def all_in() -> bool:
            venue.acknowledge()
            ledgers.clear()
            for pair in pairs:
                after = 0
                while True:
                    got = pair.daemon.usage(after)["records"]
                    for r in got:
                        ledgers[(r["table"], r["boot"], r["seq"])] = r
                    if len(got) < 500:
                        break
                    after = got[-1]["seq"]
            with venue.lock:
                return set(ledgers) <= set(venue.store)
        with contextlib.suppress(AssertionError):
            # amqtt forgets everything at its restart: the agents re-send after RESEND_S.
            wait_for(all_in, 60 if broker_name == "mosquitto" else 180,
                     "every record at the venue")
        # Log reads are paced by the daemon: a long one on a loaded machine may time out,
        # and the other figures still stand.
        wall_of: dict[float, float] = {}
        with contextlib.suppress(OSError, AssertionError, ValueError):
            fault_rows = call(pairs[0].daemon.socket, "log", {"kind": "fault", "limit": 2000},
                              timeout=120)
            wall_of = {round(r["t"], 3): r["wall"] for r in fault_rows["rows"]
                       if r.get("kind") == "fault"}
    finally:
        for pair in pairs:
            pair.stop()
        venue.close()
        broker.stop()
    with venue.lock:
        stored = set(venue.store)
        deliveries = venue.deliveries
        faults = list(venue.faults)
    # Before its agent is first online a table's faults wait for it (the agent starts
    # after its daemon, and on amqtt tries MQTT 5 first): not the steady state either.
    windows.append((0.0, venue.online_wall.get("t0", float("inf"))))
    raised = [(wall_of[round(t, 3)], got) for table, t, got in faults
              if table == "t0" and t is not None and round(t, 3) in wall_of]
    latencies = sorted((got - at) * 1000 for at, got in raised)
    steady = sorted((got - at) * 1000 for at, got in raised
                    if not any(a <= at <= b for a, b in windows))
    figures.update({
        "hands": len(ledgers), "wall_s": round(play_s, 1), "disruptions": events,
        "lost": len(set(ledgers) - stored),
        # Two records of one table with one seq (under two boots): the ledger's key broken.
        "duplicated": len(stored) - len({(t, seq) for t, _, seq in stored}),
        "stored": len(stored & set(ledgers)),
        "deliveries": deliveries, "redelivered": deliveries - len(stored),
        "interrupted_hands": sum(1 for r in ledgers.values() if r["ended"] == "interrupted"),
        "boots": {pair.table: max((b for t, b, _ in ledgers if t == pair.table), default=0)
                  for pair in pairs},
        "fault_events": len(latencies),
        "fault_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "fault_p95_ms": round(latencies[int(len(latencies) * 0.95) - 1], 1)
        if latencies else None,
        "fault_events_steady": len(steady),
        "fault_p50_ms_steady": round(statistics.median(steady), 1) if steady else None,
        "fault_p95_ms_steady": round(steady[int(len(steady) * 0.95) - 1], 1)
        if steady else None,
        "agents": usages,
    })
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--speed", type=float, default=100.0)
    parser.add_argument("--broker", choices=("mosquitto", "amqtt"), default="mosquitto")
    args = parser.parse_args(argv)
    children.install()
    print(json.dumps(measure(args.tables, args.hands, args.speed, args.broker), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
