"""A table for the phone console's browser tests: a simulated daemon at real speed
(the daemon's hold cap is table time), the phone console in its own thread and
loop, and a watcher of the daemon's signals and events on its API socket."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware.api.client import SUBSCRIBE, Client
from mjtable_core.config import load_config
from tests.console.conftest import TOKEN, Daemon, start_daemon
from venue.agent.phone.server import PhoneConsole

__all__ = ["TOKEN", "PhoneRig", "TableProcess", "Watcher"]


class Watcher:
    """The daemon's `signals` and `events` streams, each message with its arrival time."""

    def __init__(self, path: Path) -> None:
        self.client = Client(path)
        self.client.call(SUBSCRIBE, {"streams": ["signals", "events"]})
        self.seen: list[tuple[float, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):     # closed under the reader
            for message in self.client.streams():
                with self.lock:
                    self.seen.append((time.monotonic(), message))

    def signal_at(self, name: str, value: Any, after: float) -> float | None:
        """When `name` was first seen at `value` after `after` (monotonic), or None."""
        with self.lock:
            for t, message in self.seen:
                if t >= after and message.get("stream") == "signals" and name in message.get(
                        "signals", {}) and message["signals"][name] == value:
                    return t
        return None

    def events(self, kind: str, after: float = 0.0) -> list[dict[str, Any]]:
        with self.lock:
            return [m["event"] for t, m in self.seen if t >= after
                    and m.get("stream") == "event" and m["event"].get("kind") == kind]

    def wait(self, found: Callable[[], Any], timeout: float = 5.0,
             idle: Callable[[], Any] | None = None) -> Any:
        """Poll `found`; `idle` between polls (a page's wait_for_timeout: Playwright's
        sync API serves the pages' routed requests only while a call is in it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = found()
            if value:
                return value
            (idle or (lambda: time.sleep(0.01)))()
        raise AssertionError("not seen in time")

    def close(self) -> None:
        self.client.close()


class PhoneRig:
    def __init__(self, state: Path) -> None:
        self.daemon: Daemon
        self.daemon, self._stop_daemon = start_daemon(state, speed=1.0, players=False)
        self.watcher = Watcher(self.daemon.socket)
        self.loop = asyncio.new_event_loop()
        self.console = PhoneConsole(load_config(), self.daemon.socket, "127.0.0.1:0")
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.console.start())
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert started.wait(60), "the phone console did not start"
        host, port = self.console.address or ("127.0.0.1", 0)
        self.url = f"http://{host}:{port}/"

    def log_everyone_out(self) -> None:
        """As each technician would (a killed tab's session otherwise waits out its
        idle time, and a table takes four at once)."""
        asyncio.run_coroutine_threadsafe(self.console.sessions.close(), self.loop).result(10)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.console.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.watcher.close()
        self._stop_daemon()


class TableProcess:
    """A PhoneRig in a child process, as on a table the daemon and the agent run apart
    from the browser (in one process with Playwright's driver, a loaded machine
    starves the daemon's loop of its turns). Here: its URL and a watcher."""

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        if not self.pipe.poll(60):
            self.process.kill()
            raise RuntimeError("the table did not start")
        self.url, socket = self.pipe.recv()
        self.watcher = Watcher(Path(socket))

    def _ask(self, *what: Any) -> Any:
        self.pipe.send(what)
        return self.pipe.recv()

    def test_mode(self) -> bool:
        return bool(self._ask("test_mode"))

    def fault(self, fault_id: str, where: str) -> None:
        self._ask("fault", fault_id, where)

    def log_everyone_out(self) -> None:
        self._ask("logout")

    def hand_ended(self) -> None:
        """The lid open after a dealt hand, as the journal restores it after a power
        cut: the players may score it (a hand played here takes minutes)."""
        self._ask("hand_ended")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.pipe.send(("stop",))
        self.process.join(30)
        if self.process.is_alive():
            self.process.kill()
        self.watcher.close()


def _serve(pipe: Any) -> None:
    import tempfile

    rig = PhoneRig(Path(tempfile.mkdtemp(prefix="phone-table-")))
    pipe.send((rig.url, str(rig.daemon.socket)))
    ctl = rig.daemon.ctl
    service = rig.daemon.api.maintenance
    try:
        while (asked := pipe.recv())[0] != "stop":
            if asked[0] == "test_mode":
                pipe.send(rig.daemon.call(lambda: service.test_mode))
            elif asked[0] == "fault":
                rig.daemon.call(lambda: ctl.fault(asked[1], asked[2], None, {}))
                pipe.send(True)
            elif asked[0] == "hand_ended":
                rig.daemon.call(lambda: ctl.scoring.restore({"last_hand": {
                    "table": {"cycle": ctl.cycle.number, "dealer_position": 0},
                    "commitment": "0" * 64, "wild": None}}))
                pipe.send(True)
            else:
                rig.log_everyone_out()
                pipe.send(True)
    except EOFError:
        pass
    finally:
        rig.close()
