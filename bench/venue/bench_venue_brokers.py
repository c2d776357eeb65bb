"""Tables per broker: synthetic MQTT tables replaying an agent's recorded traffic.

Each synthetic table connects as its own user (Mosquitto: per-table ACL) and replays
what a real `mjtable agent` published (bench/venue/venue_traffic.json, recorded with
`--record`): its `status` payloads once a second and a hand record once a minute, both
QoS 1, each stamped with its send time; one venue subscriber takes everything. The
figure is publish-to-subscriber latency (p50, p99) and losses at each fleet size; the
knee is the first size where p99 passes 100 ms.

The load generator is measured too, so that its own lag is not taken for the
broker's: the fleet is split over `--procs` processes (asyncio each, a bare MQTT
client, bench/helpers/mqtt_wire.py), the subscriber has its own, and each reports how late
its loop ran (`gen_lag_p99_ms`: a table's second that began late; `sub_lag_p99_ms`:
a 10 ms ticker in the subscriber). A step whose generator lag is near its latency
measured the generator, not the broker. Everything shares the machine with the
broker: the load average is printed with each step.

A machine shared with other jobs: Linux shares the CPU between sessions first
(autogroup), so a nice value only orders processes inside one session, and on a
loaded machine every process of the bench waits its session's turn (the lags above
grow together with the latency). `--own-machine` runs the whole bench in a session of
its own whose autogroup is niced to -20 (root): the broker, generators and subscriber
then get the CPU as on a venue's own broker machine.

    python -m bench.venue.bench_venue_brokers [--sizes 100,250,500,1000] [--seconds 15]
                                        [--procs 4] [--runs 3] [--own-machine] [--nodelay]
    python -m bench.venue.bench_venue_brokers --record bench/venue/venue_traffic.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.helpers import children
from bench.helpers.mqtt_wire import WireClient
from bench.helpers.venue_brokers import (
    VENUE_PASSWORD,
    VENUE_USER,
    Amqtt,
    Mosquitto,
    amqtt_missing,
    mosquitto_missing,
    own_machine,
    table_password,
)

TRAFFIC = Path(__file__).with_name("venue_traffic.json")
KNEE_MS = 100.0
GIVE_UP_MS = 400.0      # a step this far past the knee ends the broker's series
# A status as `mjtable agent` publishes it (venue/wire.py), and a hand record.
STATUS = {"state": "play", "hand_in_play": True, "estopped": False, "faults_active": 0,
          "display": "3-5", "test_mode": False, "gate": None}
HAND = {"boot": 3, "seq": 0, "cycle": 41, "start": 1764600000.123, "end": 1764600301.5,
        "duration_s": 301.4, "booking_id": "B-7", "variant": "mcr", "ended": "played"}


def _name(n: int) -> str:
    return f"s{n:04d}"


def _traffic(topic: str) -> list[dict[str, Any]]:
    """The payloads a real agent published on `topic`, in order (or one made up, if
    none was recorded)."""
    try:
        recorded = json.loads(TRAFFIC.read_text(encoding="utf-8"))
        found = [m["payload"] for m in recorded["messages"] if m["topic"] == topic]
    except (OSError, ValueError, KeyError):
        found = []
    return found or [STATUS if topic == "status" else HAND]


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 2)


async def _table(n: int, port: int, auth: bool, traffic: tuple[list[dict[str, Any]], ...],
                 go: asyncio.Event, stop_at: list[float], counts: dict[str, int],
                 lags: list[float]) -> None:
    table = _name(n)
    client = WireClient()
    await client.connect(port, table, *((table, table_password(table)) if auth else ()))
    counts["connected"] += 1
    try:
        await go.wait()
        due = time.monotonic() + random.random()           # spread over the second
        next_hand = time.monotonic() + random.random() * 60
        statuses, hands = traffic
        seq, step = 0, random.randrange(len(statuses))
        while True:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            now = time.monotonic()
            if now >= stop_at[0]:
                return
            lags.append((now - due) * 1000)
            sent = time.time()
            step = (step + 1) % len(statuses)
            client.publish(f"mjt/v1/{table}/status", json.dumps(
                {**statuses[step], "table": table, "wall": sent}).encode(), qos=1)
            counts["sent"] += 1
            if now >= next_hand:
                seq += 1
                next_hand += 60
                client.publish(f"mjt/v1/{table}/event/hand", json.dumps(
                    {**hands[seq % len(hands)], "table": table, "seq": seq,
                     "wall": sent}).encode(), qos=1)
                counts["sent"] += 1
            due += 1.0
    finally:
        await client.close()


async def _share(port: int, auth: bool, numbers: list[int], ready: Any, go: Any,
                 seconds: float) -> dict[str, Any]:
    """One generator process: its tables connected, then `seconds` of traffic."""
    traffic = (_traffic("status"), _traffic("event/hand"))
    counts = {"connected": 0, "sent": 0}
    lags: list[float] = []
    started = asyncio.Event()
    stop_at = [float("inf")]
    tasks: list[asyncio.Task[None]] = []
    for first in range(0, len(numbers), 50):        # connect in batches
        batch = numbers[first:first + 50]
        tasks += [asyncio.create_task(_table(n, port, auth, traffic, started, stop_at,
                                             counts, lags)) for n in batch]
        while counts["connected"] < first + len(batch):
            await asyncio.sleep(0.02)
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed:
                raise failed[0].exception()     # type: ignore[misc]
    ready.put(len(numbers))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    stop_at[0] = time.monotonic() + seconds
    cpu = time.process_time()
    started.set()
    await asyncio.sleep(seconds + 1.5)
    cpu = time.process_time() - cpu
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"sent": counts["sent"], "lag_p99_ms": _quantile(lags, 0.99),
            "lag_max_ms": _quantile(lags, 1.0), "cpu_s": cpu}


def _generator(port: int, auth: bool, numbers: list[int], ready: Any, go: Any,
               seconds: float, out: Any, nice: int | None) -> None:
    _renice(os.getpid(), nice)
    try:
        out.put(asyncio.run(_share(port, auth, numbers, ready, go, seconds)))
    except Exception as exc:  # the broker refusing or falling over is a figure
        ready.put(0)
        out.put({"failed": f"{type(exc).__name__}: {exc}"})


async def _subscribe(port: int, auth: bool, ready: Any, done: Any) -> dict[str, Any]:
    latencies: list[float] = []
    lags: list[float] = []
    venue = WireClient()
    await venue.connect(port, "venue-bench", *((VENUE_USER, VENUE_PASSWORD) if auth else ()))
    venue.on_publish = lambda topic, data: latencies.append(
        (time.time() - json.loads(data)["wall"]) * 1000)
    await venue.subscribe(["mjt/v1/+/status", "mjt/v1/+/event/hand"], qos=1)
    ready.put(0)
    loop = asyncio.get_running_loop()
    finished = loop.run_in_executor(None, done.wait)
    cpu = time.process_time()
    while not finished.done():
        due = time.monotonic() + 0.01
        await asyncio.sleep(0.01)
        lags.append((time.monotonic() - due) * 1000)
    cpu = time.process_time() - cpu
    # What is still in flight (a broker behind): until nothing came for 2 s.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        seen = len(latencies)
        await asyncio.sleep(2.0)
        if len(latencies) == seen:
            break
    await venue.close()
    return {"received": len(latencies), "p50_ms": _quantile(latencies, 0.5),
            "p99_ms": _quantile(latencies, 0.99), "max_ms": _quantile(latencies, 1.0),
            "sub_lag_p99_ms": _quantile(lags, 0.99), "sub_cpu_s": cpu}


def _subscriber(port: int, auth: bool, ready: Any, done: Any, out: Any,
                nice: int | None) -> None:
    _renice(os.getpid(), nice)
    try:
        out.put(asyncio.run(_subscribe(port, auth, ready, done)))
    except Exception as exc:
        ready.put(0)
        out.put({"failed": f"{type(exc).__name__}: {exc}"})


def _renice(pid: int, nice: int | None) -> None:
    if nice is not None:
        os.setpriority(os.PRIO_PROCESS, pid, nice)


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _step(port: int, auth: bool, tables: int, seconds: float, procs: int,
          nice: int | None, broker_pid: int) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    ready, go, done = context.Queue(), context.Event(), context.Event()
    sub_out, gen_out = context.Queue(), context.Queue()
    subscriber = context.Process(target=_subscriber, args=(port, auth, ready, done, sub_out,
                                                                 nice))
    subscriber.start()
    ready.get(timeout=60)
    broker_cpu = _cpu_s(broker_pid)
    procs = max(1, min(procs, tables))
    shares = [list(range(tables))[i::procs] for i in range(procs)]
    start = time.monotonic()
    generators = [context.Process(target=_generator,
                                  args=(port, auth, share, ready, go, seconds, gen_out,
                                        nice))
                  for share in shares]
    for proc in generators:
        proc.start()
    try:
        for _ in generators:
            ready.get(timeout=300)
        connect_s = time.monotonic() - start
        broker_cpu, traffic_at = _cpu_s(broker_pid), time.monotonic()
        go.set()
        shares_done = [gen_out.get(timeout=seconds + 120) for _ in generators]
        broker_cpu = _cpu_s(broker_pid) - broker_cpu
        traffic_s = time.monotonic() - traffic_at
        time.sleep(1.0)                     # the last messages in flight
        done.set()
        received = sub_out.get(timeout=60)
    finally:
        done.set()
        for proc in [*generators, subscriber]:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
    failed = [s["failed"] for s in [*shares_done, received] if "failed" in s]
    if failed:
        return {"tables": tables, "failed": failed[0]}
    sub_cpu_s = received.pop("sub_cpu_s")
    return {"tables": tables, "procs": procs, "connect_s": round(connect_s, 2),
            "sent": sum(s["sent"] for s in shares_done), **received,
            "gen_lag_p99_ms": max(s["lag_p99_ms"] or 0 for s in shares_done),
            "gen_lag_max_ms": max(s["lag_max_ms"] or 0 for s in shares_done),
            # Share of one core over the traffic: who works hardest.
            "broker_cpu_percent": round(100 * broker_cpu / traffic_s, 1),
            "gen_cpu_percent": round(100 * sum(s["cpu_s"] for s in shares_done) / traffic_s, 1),
            "sub_cpu_percent": round(100 * sub_cpu_s / traffic_s, 1),
            "load_1min": round(os.getloadavg()[0], 1)}



def _one(name: str, size: int, seconds: float, procs: int, nodelay: bool,
         nice: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as directory:
        broker = (Mosquitto(Path(directory), [_name(n) for n in range(size)],
                            extra="set_tcp_nodelay true\n" if nodelay else "")
                  if name == "mosquitto" else Amqtt(Path(directory)))
        broker.start()
        _renice(broker.proc.pid, nice)   # type: ignore[union-attr]
        try:
            return _step(broker.port, name == "mosquitto", size, seconds, procs, nice,
                         broker.proc.pid)   # type: ignore[union-attr]
        except Exception as exc:  # a broker that falls over is a figure too
            return {"tables": size, "failed": f"{type(exc).__name__}: {exc}"}
        finally:
            broker.stop()


def measure(sizes: list[int], seconds: float, brokers: list[str], procs: int = 4,
            runs: int = 1, nodelay: bool = False, nice: int | None = None) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name in brokers:
        missing = mosquitto_missing() if name == "mosquitto" else amqtt_missing()
        if missing:
            figures[name] = {"skipped": missing}
            continue
        steps = []
        for size in sizes:
            tries = []
            for _ in range(runs):
                tries.append(_one(name, size, seconds, procs, nodelay, nice))
                print(json.dumps({name: tries[-1]}), file=sys.stderr, flush=True)
            good = [t for t in tries if not t.get("failed")]
            step: dict[str, Any] = {"tables": size, "runs": len(tries),
                                    "failed": len(tries) - len(good)}
            for key in ("p50_ms", "p99_ms", "max_ms", "gen_lag_p99_ms", "sub_lag_p99_ms",
                        "broker_cpu_percent", "gen_cpu_percent", "sub_cpu_percent",
                        "load_1min"):
                values = [t[key] for t in good if t.get(key) is not None]
                step[key] = round(statistics.median(values), 2) if values else None
            step["p99_ms_each"] = [t.get("p99_ms") for t in good]
            step["lost"] = [t["sent"] - t["received"] for t in good]
            steps.append(step)
            if len(good) * 2 < len(tries) or (step["p99_ms"] or 0) > GIVE_UP_MS:
                break                                 # well past the knee
        def past(step: dict[str, Any]) -> bool:
            return step["failed"] * 2 >= step["runs"] or (step["p99_ms"] or 0) > KNEE_MS
        knee = next((s["tables"] for s in steps if past(s)), None)
        under = [s["tables"] for s in steps if not past(s)]
        figures[name] = {"steps": steps, "knee_tables": knee,
                         "max_tables_p99_under_100ms": max(under) if under else None}
    figures.update(procs=procs, nodelay=nodelay, nice=nice,
                   load_1min_now=round(os.getloadavg()[0], 1))
    return figures


def record(path: Path, seconds: float) -> dict[str, Any]:
    """What one real `mjtable run` + `mjtable agent` pair publishes, for the replay."""
    import paho.mqtt.client as mqtt

    from bench.helpers.venue_tables import ROOT, Daemon, wait_for
    messages: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        broker = Mosquitto(Path(directory) / "broker", ["t0"]).start()
        daemon = Daemon(Path(directory), "t0", speed=20.0, extra=(
            f'\n[venue]\nbroker = "{broker.url}"\npassword = "{table_password("t0")}"\n'))
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="recorder")
        client.username_pw_set(VENUE_USER, VENUE_PASSWORD)
        client.on_connect = lambda c, *_: c.subscribe("mjt/v1/t0/#", qos=1)
        started = time.monotonic()
        client.on_message = lambda c, u, m: messages.append({
            "at_s": round(time.monotonic() - started, 3), "topic": m.topic[len("mjt/v1/t0/"):],
            "payload": m.payload.decode()})
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        agent = None
        try:
            daemon.start()
            agent = children.spawn([sys.executable, "-m", "mjtable.cli", "agent", "--config",
                                    str(daemon.config), "--socket", str(daemon.socket)],
                                   cwd=ROOT)
            wait_for(lambda: any(m["topic"] == "status" for m in messages), 60, "a status")
            time.sleep(seconds)
        finally:
            if agent is not None:
                children.stop(agent)
            client.loop_stop()
            daemon.stop()
            broker.stop()
    kept = []
    for message in messages:
        if message["topic"] in ("status", "event/hand"):
            payload = json.loads(message["payload"])
            payload.pop("table", None)
            payload.pop("wall", None)
            kept.append({**message, "payload": payload})
    # One message a line: a diff of a new recording reads.
    rows = ",\n".join("  " + json.dumps(m, separators=(",", ":"), ensure_ascii=False)
                      for m in kept)
    path.write_text('{"recorded_with": "mjtable run --speed 20 + mjtable agent",\n'
                    f' "messages": [\n{rows}\n ]}}\n', encoding="utf-8")
    return {"recorded": len(kept), "path": str(path)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,250,500,1000")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--brokers", default="mosquitto,amqtt")
    parser.add_argument("--procs", type=int, default=4,
                        help="generator processes the fleet is split over")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (medians)")
    parser.add_argument("--nodelay", action="store_true",
                        help="Mosquitto with set_tcp_nodelay true (no Nagle delay)")
    parser.add_argument("--nice", type=int, default=None,
                        help="broker, generators and subscriber at this nice (below 0 needs "
                             "root): the venue's own machine, not one shared with other work")
    parser.add_argument("--own-machine", action="store_true",
                        help="run in a session of its own, its autogroup at nice -20 (root)")
    parser.add_argument("--record", metavar="PATH",
                        help="record a real agent's traffic for the replay, then exit")
    args = parser.parse_args(argv)
    if args.own_machine:
        return own_machine("bench.venue.bench_venue_brokers", [
            a for a in (sys.argv[1:] if argv is None else argv) if a != "--own-machine"])
    children.install()
    if args.record:
        print(json.dumps(record(Path(args.record), args.seconds)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    print(json.dumps(measure(sizes, args.seconds, args.brokers.split(","), args.procs,
                             args.runs, args.nodelay, args.nice), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
