"""Abandoned `log` reads no longer hold the event-log lane (a connection that
pipelined `log {"limit": 10000}` and hung up kept its reads running one by one: another
uid's `log {"limit": 1}` waited 117 s), and the lane is taken in turn by uid."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from firmware.api.loglane import LogLane
from firmware.api.server import MAX_IN_FLIGHT
from tests.console.conftest import Daemon
from tests.security.conftest import raw, replies


def test_a_closed_connection_cancels_its_pending_log_reads(daemon: Daemon) -> None:
    log = daemon.api.eventlog
    real = log.iter_query
    calls: list[dict[str, Any]] = []
    lock = threading.Lock()

    def query(**filters: Any) -> Iterator[dict[str, Any]]:
        with lock:
            calls.append(filters)
        time.sleep(0.3)        # a long read over fat rows
        return iter(list(real(**filters)))

    log.iter_query = query   # type: ignore[method-assign]
    try:
        line = json.dumps({"id": 1, "method": "log", "params": {"limit": 10000}}).encode()
        for _n in range(3):
            with raw(daemon) as flood:
                flood.sendall((line + b"\n") * MAX_IN_FLIGHT)
                time.sleep(0.2)     # the reads are queued in the daemon
        with raw(daemon) as sock:
            sock.sendall(b'{"id": 7, "method": "log", "params": {"limit": 1}}\n')
            reply = replies(sock, 1)[0]
        assert reply["ok"]
        with lock:
            abandoned = sum(1 for c in calls if c.get("limit") == 10000)
    finally:
        del log.iter_query
    # Before: all 48 abandoned reads ran before it (14 s here; 117 s with fat rows).
    assert abandoned <= 6, abandoned


def test_the_lane_serves_each_uid_in_turn() -> None:
    async def main() -> list[str]:
        lane = LogLane()
        order: list[str] = []

        async def read(key: str, n: int) -> None:
            async with lane.turn(key):
                order.append(f"{key}{n}")
                await asyncio.sleep(0.001)
        tasks = [asyncio.create_task(read("uid:1000", n)) for n in range(20)]
        await asyncio.sleep(0)
        tasks.append(asyncio.create_task(read("uid:1001", 0)))
        gone = asyncio.create_task(read("uid:1002", 0))
        await asyncio.sleep(0)
        gone.cancel()               # its connection closed while it waited
        await asyncio.gather(*tasks)
        assert lane.waiting() == 0
        return order

    order = asyncio.run(main())
    assert order.index("uid:10010") <= 2, order
    assert "uid:10020" not in order
    assert len(order) == 21


def test_the_lane_rests_after_a_read_even_when_its_reader_went() -> None:
    async def main() -> float:
        lane = LogLane()
        loop = asyncio.get_running_loop()
        async with lane.turn("uid:1"):
            lane.rest(0.2)
        started = loop.time()
        async with lane.turn("uid:2"):
            return loop.time() - started
    assert asyncio.run(main()) >= 0.19
