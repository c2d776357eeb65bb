"""The dashboard's stream under hostile clients: clients that never read, a reconnect
storm, while 100 tables each change once a second. Prints the venue's event-loop lag
(how late a 10 ms timer fires) and the process's RSS growth.

    python -m bench.venue.bench_desk_sse [--stuck 200] [--storm 300] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import time

from aiohttp import web

from venue.desk.accounts import throttle
from venue.desk.accounts.sessions import COOKIE
from venue.desk.config import parse
from venue.desk.tables.fleet import Fleet
from venue.desk.web.app import make_app
from venue.desk.web.login import SESSIONS

TABLES = 100


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def lag_probe(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append((time.perf_counter() - start - 0.01) * 1000)


async def feed(fleet: Fleet, stop: asyncio.Event) -> None:
    n = 0
    while not stop.is_set():
        for table in range(1, TABLES + 1):
            fleet.feed(f"mjt/v1/t{table}/status", json.dumps(
                {"hand_in_play": (n + table) % 2 == 0, "display": str(n)}).encode())
            await asyncio.sleep(1.0 / TABLES)
        n += 1


async def stuck_client(port: int, cookie: str, hold: list[asyncio.StreamWriter]) -> None:
    """Asks for the stream and never reads a byte of it."""
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 f"Cookie: {COOKIE}={cookie}\r\n\r\n".encode())
    await writer.drain()
    hold.append(writer)


async def storm_client(port: int, cookie: str) -> None:
    """Connects, reads the first event (every tile), hangs up."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 f"Cookie: {COOKIE}={cookie}\r\n\r\n".encode())
    await writer.drain()
    got = b""
    while b"\n\n" not in got[got.find(b"event: tiles"):] or b"event: tiles" not in got:
        chunk = await asyncio.wait_for(reader.read(65536), 10.0)
        if not chunk:
            break
        got += chunk
    writer.close()


async def phase(name: str, seconds: float, work: object) -> None:
    lags: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(lag_probe(lags, stop))
    before = rss_mib()
    started = time.perf_counter()
    if work is not None:
        await work      # type: ignore[misc]
    await asyncio.sleep(max(0.0, seconds - (time.perf_counter() - started)))
    stop.set()
    await probe
    lags.sort()
    print(f"{name:<34} loop lag p50 {statistics.median(lags):6.1f} ms  "
          f"p99 {lags[int(len(lags) * 0.99)]:6.1f} ms  max {lags[-1]:6.1f} ms  "
          f"RSS {before:6.1f} -> {rss_mib():6.1f} MiB")


async def main(stuck: int, storm: int, seconds: float) -> None:
    fleet = Fleet()
    for table in range(1, TABLES + 1):
        fleet.feed(f"mjt/v1/t{table}/avail", b"online")
    # Every page here is one session from one address: the bench measures what many
    # dashboards cost, not the desk's share of streams per session and address.
    throttle.STREAMS_PER_SESSION = throttle.STREAMS_PER_ADDRESS = 1_000_000
    app = make_app(parse({}, "bench.toml"), fleet)
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    cookie, _session = app[SESSIONS].open("bench")
    stop = asyncio.Event()
    feeder = asyncio.create_task(feed(fleet, stop))
    hold: list[asyncio.StreamWriter] = []
    await phase("100 tables, no client", seconds, None)
    await phase(f"+ {stuck} clients that never read", seconds,
                asyncio.gather(*(stuck_client(port, cookie, hold) for _ in range(stuck))))
    await phase(f"+ reconnect storm of {storm}", seconds,
                asyncio.gather(*(storm_client(port, cookie) for _ in range(storm))))
    await phase("after the storm", seconds, None)
    print(f"watchers still held: {len(fleet._watchers)} (stuck clients: {len(hold)})")
    stop.set()
    await feeder
    for writer in hold:
        writer.close()
    await runner.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--stuck", type=int, default=200)
    parser.add_argument("--storm", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    asyncio.run(main(args.stuck, args.storm, args.seconds))
