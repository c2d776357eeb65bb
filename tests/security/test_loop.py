"""The loop the table runs on under floods (issue 22): request framing in linear time,
empty lines and garbage counted against their connection, and the e-stop ahead of
everyone's budget. Figures under load are in bench/api/bench_floods.py."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import pytest

from firmware.api import server as api_server
from firmware.api.framing import OVERLONG, LineSplitter
from firmware.api.guards.budget import Budgets
from tests.console.conftest import Daemon, replies, start_daemon
from tests.console.conftest import raw as console_raw


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon with the budgets it ships with."""
    running, stop = start_daemon(tmp_path_factory.mktemp("state"), budgets=True)
    yield running
    stop()


def test_framing_is_linear_in_what_was_read() -> None:
    """Attack: 64 KiB blocks of bare newlines; each line copied the rest of the buffer,
    so one block cost gigabytes of copying while the loop waited."""
    splitter = LineSplitter(64 * 1024)
    started = time.process_time()
    lines = 0
    for _ in range(64):                   # 4 MiB of newlines, then one request
        splitter.feed(b"\n" * 65536)
        while splitter.next() is not None:
            lines += 1
    splitter.feed(b'{"id": 1, "method": "info"}\n')
    assert splitter.next() == b'{"id": 1, "method": "info"}'
    assert lines == 64 * 65536
    assert time.process_time() - started < 5.0


def test_an_over_long_line_is_answered_once_and_skipped() -> None:
    splitter = LineSplitter(10)
    splitter.feed(b"x" * 25)
    assert splitter.next() is OVERLONG and splitter.next() is None
    splitter.feed(b"x" * 25 + b"\nok\n")
    assert splitter.next() == b"ok" and splitter.next() is None


class LoopGaps:
    """The longest wait between ticks of a 10 ms timer in the daemon's loop, in the
    machine's seconds (`worst`) and in the loop thread's own CPU seconds (`busy`).

    A loop held by our code burns its thread's CPU all through the gap; a loop the
    kernel did not schedule (a machine loaded by other test runs) waits with its thread
    idle. Only the first says something about the daemon."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon, self.worst, self.busy, self.running = daemon, 0.0, 0.0, True
        self.last = self.last_cpu = 0.0

    def _tick(self) -> None:
        now, cpu = self.daemon.loop.time(), time.thread_time()
        if self.last:
            self.worst = max(self.worst, now - self.last)
            self.busy = max(self.busy, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu
        if self.running:
            self.daemon.loop.call_later(0.01, self._tick)

    def __enter__(self) -> LoopGaps:
        self.daemon.loop.call_soon_threadsafe(self._tick)
        return self

    def __exit__(self, *_: object) -> None:
        self.running = False


def test_a_block_of_newlines_neither_stalls_the_loop_nor_holds_a_slot(
        budgeted: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty lines cost like requests: a connection sending only them is dropped, and
    the loop keeps ticking while it is read."""
    monkeypatch.setattr(api_server, "JUNK_HOLD_S", 0.2)
    with LoopGaps(budgeted) as gaps, console_raw(budgeted) as sock:
        try:
            for _ in range(16):
                sock.sendall(b"\n" * 65536)
        except OSError:
            pass                            # closed while we were still sending
        assert read_until_closed(sock) < 10
    assert gaps.busy < 1.0, (f"the loop was held {gaps.busy:.2f} s of CPU "
                             f"(waited {gaps.worst:.2f} s)")
    rows = budgeted.rows("api.client.dropped")
    assert any("no request" in r.get("why", "") for r in rows)


def read_until_closed(sock: socket.socket) -> float:
    """Seconds until the daemon closed the connection (a timeout fails the test)."""
    started = time.monotonic()
    sock.settimeout(10)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def test_the_estop_goes_before_every_budget(budgeted: Daemon) -> None:
    """With everyone's budget spent (a flood on other connections), a request waits;
    an e-stop press is taken at once, even from a connection past its own budget."""
    spent = Budgets(client_lines=(0.001, 2.0), all_lines=(0.001, 1.0))
    budgeted.call(lambda: budgeted.api.server.set_budgets(spent))
    try:
        with console_raw(budgeted) as sock:
            sock.sendall(b'{"id": 1, "method": "status"}\n{"id": 2, "method": "estop"}\n'
                         b'{"id": 3, "method": "status"}\n')
            got = {r["id"]: r for r in replies(sock, 2)}
            assert got[2]["ok"] and got[2]["result"]["estopped"]
            sock.settimeout(0.5)
            with pytest.raises(TimeoutError):
                sock.recv(65536)            # the third waits for the budget
    finally:
        budgeted.call(lambda: budgeted.api.server.set_budgets(Budgets()))
    assert budgeted.ctl.estopped
    release = asyncio.run_coroutine_threadsafe(_release(budgeted), budgeted.loop)
    release.result(5)


async def _release(daemon: Daemon) -> None:
    daemon.ctl.release_estop("test")
    daemon.api.maintenance.resume_if_clear()
