"""A running table daemon for the console tests: the daemon's own asyncio machinery
(RealClock, sim HAL, controller, event log, API) in a thread, on a temp socket."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.api.attach import Attachment, attach_api
from firmware.api.auth import Technicians
from firmware.api.guards.budget import UNLIMITED
from firmware.controller import Controller, compose_table
from hal.backends import open_hal
from mjtable_core.clock import RealClock
from mjtable_core.config import load_config

SPEED = 50.0
TOKEN = "li-token-0123"
LOCKOUT_S = 50.0        # table seconds: one wall second at SPEED


@dataclasses.dataclass
class Daemon:
    socket: Path
    state: Path
    loop: asyncio.AbstractEventLoop
    ctl: Controller
    api: Attachment

    def call(self, fn: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Run `fn` inside the daemon's loop (controller state is the loop's alone)."""
        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def rows(self, kind: str) -> list[dict[str, Any]]:
        self.api.eventlog.flush()
        return self.api.eventlog.query(kind=kind, limit=1000)


def start_daemon(state: Path, seed: int = 3, budgets: bool = False, speed: float = SPEED,
                 players: bool = True) -> tuple[Daemon, Callable[[], None]]:
    """A daemon on the simulator in a thread; without `budgets` clients may send as
    fast as they like (most tests flood on purpose to see something else)."""
    Technicians(state / "technicians.json").add("li", TOKEN)
    socket = state / "api.sock"
    box: dict[str, Any] = {}
    ready = threading.Event()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        base = load_config()
        config = dataclasses.replace(
            base, hal=dataclasses.replace(base.hal, backend="sim"),
            api=dataclasses.replace(base.api, lockout_failures=3, lockout_s=LOCKOUT_S))
        clock = RealClock(loop, speed)
        opened = open_hal(config, clock, seed)
        ctl = compose_table(config, opened.hal, clock, consumers=False)
        api = await attach_api(ctl, state_dir=state, socket_path=socket)
        if not budgets:
            api.server.set_budgets(UNLIMITED)
        api.maintenance.power_on()
        if players:     # without them the table builds and waits, ready, lid down
            opened.start_world()
        stop = asyncio.Event()
        box.update(daemon=Daemon(socket, state, loop, ctl, api), stop=stop)
        ready.set()
        await stop.wait()
        ctl.stop()
        await api.close()

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    assert ready.wait(60), "the daemon did not start"
    daemon = box["daemon"]

    def stop() -> None:
        daemon.loop.call_soon_threadsafe(box["stop"].set)
        thread.join(20)

    return daemon, stop


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    running, stop = start_daemon(tmp_path_factory.mktemp("state"))
    yield running
    stop()


def raw(daemon: Daemon, timeout_s: float = 10.0) -> socket.socket:
    """A bare connection to the daemon's socket: requests written by hand."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    sock.connect(str(daemon.socket))
    return sock


def replies(sock: socket.socket, count: int, streams: bool = True) -> list[dict]:
    """The next `count` messages on `sock` (without subscription streams: `streams`)."""
    out, buf = [], b""
    while len(out) < count:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {len(out)} replies"
        buf += chunk
        *lines, buf = buf.split(b"\n")
        out += [m for m in (json.loads(line) for line in lines if line)
                if streams or "stream" not in m]
    return out
