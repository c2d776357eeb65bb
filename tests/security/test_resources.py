"""Resources: connections are limited overall and per uid and dropped when idle; a
journal write that fails is a fault through the shutdown path, never a wedged cycle."""

from __future__ import annotations

import errno
import socket
import time
from typing import Any

import pytest

from firmware.api import server as api_server
from firmware.api.client import Client
from firmware.state.journal import MemoryJournal
from mjtable_core.config import load_config
from simulator.harness.runner import assemble
from tests.console.conftest import Daemon

from .conftest import raw

PER_PEER = getattr(api_server, "MAX_PER_PEER", 16)


def test_idle_connections_cannot_starve_the_table(daemon: Daemon) -> None:
    """Attack: ~1,010 idle connections used up the 1,024 fds: the journal save failed
    inside emit, the cycle wedged in `raising`, technicians could not connect."""
    held: list[socket.socket] = []
    refused = 0
    try:
        for _ in range(PER_PEER + 40):
            sock = raw(daemon)
            sock.settimeout(2)
            held.append(sock)
        time.sleep(0.5)
        for sock in held:
            try:
                sock.sendall(b'{"id": 1, "method": "info"}\n')
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data or b"too many connections" in data:
                refused += 1
        clients = daemon.call(lambda: len(daemon.api.server.clients))
        assert clients <= PER_PEER, clients
        assert refused >= 40
    finally:
        for sock in held:
            sock.close()
    # Room again once they are gone; the table goes on.
    time.sleep(0.3)
    with Client(daemon.socket) as client:
        assert client.call("status")["counters"]["clients"] >= 1


def test_an_idle_connection_is_dropped(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_server, "IDLE_S", 0.3)
    with raw(daemon) as sock:
        sock.settimeout(5)
        assert sock.recv(100) == b""      # closed by the daemon, unasked
    assert any("idle" in r["why"] for r in daemon.rows("api.client.dropped"))


def test_the_fd_budget_keeps_a_reserve(monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.api.guards import peers

    monkeypatch.setattr(peers.resource, "getrlimit", lambda _: (1024, 1024))
    assert peers.connection_budget(5000) == 1024 - peers.RESERVED_FDS
    assert peers.connection_budget(128) == 128


class FailingJournal(MemoryJournal):
    """A journal whose disk fails (out of fds, full, read-only) from some point on."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False

    def save(self, state: dict[str, Any]) -> None:
        if self.failing:
            raise OSError(errno.EMFILE, "Too many open files")
        super().save(state)


def test_a_failed_journal_write_is_a_fault_not_a_wedge() -> None:
    config = load_config()
    bench = assemble(config, seed=4)
    journal = FailingJournal()
    ctl = bench.controller
    ctl.journal = journal
    events: list[dict[str, Any]] = []
    ctl.subscribers.append(events.append)
    ctl.start()
    bench.players.start()

    def raising_started() -> bool:
        return any(e["kind"] == "raising" for e in events)
    # Fail exactly when the walls start to rise: the write inside emit("raising"),
    # which saves after every subscriber has heard the event.

    def fail_from_raising(event: dict[str, Any]) -> None:
        if event["kind"] == "raising":
            journal.failing = True
    ctl.subscribers.insert(0, fail_from_raising)
    bench.clock.run_until(4000.0, until=raising_started)
    assert raising_started()
    bench.clock.run_until(bench.clock.now() + 30.0)
    faults = [e for e in events if e["kind"] == "fault"]
    assert [(f["id"], f["where"]) for f in faults] == [("storage.failed", "journal")]
    assert "Too many open files" in faults[0]["evidence"]["error"]
    assert ctl.cycle.state == "fault"
    assert all(not v or v == "off" for name in ctl.hal.signals if name.startswith("motor.")
               for v in [ctl.hal.read(name)])
    # Storage back, the technician clears the fault: saving works again.
    journal.failing = False
    saves = journal.saves
    fault = next(f for f in ctl.faults if f.id == "storage.failed")
    ctl.clear_fault(fault, "li")
    ctl.resume_after_fault()
    bench.clock.run_until(bench.clock.now() + 200.0)
    assert journal.saves > saves
