"""Slow lines, floods of connections from one uid or many, sessions carried to another
connection, and login timing: none of them holds a slot, rotates the log away, gains
guesses or tells known names from unknown ones."""

from __future__ import annotations

import json
import os
import select
import socket
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.api import auth
from firmware.api import server as api_server
from firmware.api.client import Client
from firmware.api.guards.peers import Peer
from tests.console.conftest import TOKEN, Daemon

from .conftest import login_line, raw, replies


def unlock(daemon: Daemon) -> None:
    daemon.call(daemon.api.server.lockout._counts.clear)


def test_a_slow_line_does_not_hold_a_slot(daemon: Daemon,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack (slowloris): one byte every few seconds reset the idle timer, so a
    client held its slot for ever; enough of them starved everyone else."""
    monkeypatch.setattr(api_server, "LINE_S", 0.6)
    with raw(daemon) as slow:
        started = time.monotonic()
        closed = False
        for byte in b'{"id": 1, "method": "info", "params": {}}':
            try:
                slow.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            time.sleep(0.15)
        if not closed:
            slow.settimeout(5)
            closed = slow.recv(100) == b""
        assert closed and time.monotonic() - started < 5
    rows = daemon.rows("api.client.dropped")
    assert any("request line took over" in r.get("why", "") for r in rows)
    # A client that sends whole lines, however slowly, is served.
    with raw(daemon) as steady:
        for i in range(3):
            steady.sendall(json.dumps({"id": i, "method": "info"}).encode() + b"\n")
            assert replies(steady, 1)[0]["ok"]
            time.sleep(0.7)


def test_a_flood_of_dropped_connections_writes_a_few_rows(
        daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: connect, stall, get dropped, again: each drop was a log row, so a loop
    of them rotated the event history away like the refusal flood did."""
    monkeypatch.setattr(api_server, "LINE_S", 0.05)
    daemon.call(lambda: daemon.api.server.dropped.flush(everything=True))
    # The table's clock runs at x50: a window of 60 table-seconds is 1.2 s of the
    # machine's. Under load the flood outlasted several, one first row each: hold one
    # window open for the whole flood, so the count is the limiter's, not the machine's.
    monkeypatch.setattr(daemon.api.server.dropped, "window_s", 1e6)
    since = max((r["seq"] for r in daemon.rows("api.client.dropped")), default=0)
    flood = 60
    for _ in range(flood):
        with raw(daemon) as sock:
            sock.sendall(b'{"id"')
            sock.settimeout(5)
            assert sock.recv(100) == b""
    # The table plays on meanwhile and logs its hands: only the drops' rows count.
    written = len([r for r in daemon.rows("api.client.dropped") if r["seq"] > since])
    assert written < 10, f"{written} rows for {flood} dropped connections"
    daemon.call(lambda: daemon.api.server.dropped.flush(everything=True))
    # Every drop is in a first row or in a window's count, none lost, none written one
    # by one.
    first = [r for r in daemon.rows("api.client.dropped")
             if r["seq"] > since and "request line took" in r.get("why", "")]
    repeated = [r for r in daemon.rows("api.client.dropped.repeated")
                if r["seq"] > since and r["cause"] == "slow line"]
    assert repeated and len(first) + sum(r["count"] for r in repeated) == flood
    assert len(first) < 10 and {r["peer"] for r in repeated} == {f"uid:{os.getuid()}"}


@pytest.fixture
def many_uids(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Each new connection seems to come from the next of 20 uids of the socket's group
    (SO_PEERCRED is the kernel's; only root could really connect as other uids)."""
    uids = [60000 + n for n in range(20)]
    turn = iter(range(10**6))

    def peer(sock: Any) -> Peer:
        return Peer(uid=uids[next(turn) % len(uids)], gid=os.getgid(), pid=1)

    monkeypatch.setattr(api_server, "unix_peer", peer)
    # The daemon's clock runs fast: a lock must outlast the test to be seen holding.
    monkeypatch.setattr(daemon.api.server.lockout, "lock_s", 1e6)
    unlock(daemon)
    yield uids
    unlock(daemon)


def test_guesses_from_many_uids_stay_bounded(daemon: Daemon, many_uids: list[int]) -> None:
    """Attack: the lockout counted per uid only, so 20 uids guessing one name had 20
    times the guesses. A name now has a bound over all uids too."""
    from firmware.api.guards.lockout import UNKNOWN_GLOBAL

    checked: list[str] = []
    verify = daemon.api.server.technicians.verify

    def counting(name: str, token: str) -> bool:
        checked.append(name)
        return verify(name, token)
    daemon.api.server.technicians.verify = counting     # type: ignore[method-assign]
    failures = daemon.ctl.config.api.lockout_failures
    try:
        socks = [raw(daemon) for _ in many_uids]
        for n, sock in enumerate(socks):
            sock.sendall(b"".join(login_line("li", f"uid-guess-{n:02d}-{i:03d}", i)
                                  for i in range(12)))
        got = [r for sock in socks for r in replies(sock, 12)]
    finally:
        daemon.api.server.technicians.verify = verify   # type: ignore[method-assign]
        for sock in socks:
            sock.close()
    assert not any(r["ok"] for r in got)
    # 20 uids x 12 guesses = 240 sent; each uid alone would have had `failures` hashed.
    assert checked.count("li") <= failures * UNKNOWN_GLOBAL < len(got)
    assert checked.count("li") < failures * len(many_uids)
    # Other names and the e-stop are not touched by it.
    with Client(daemon.socket) as client:
        assert client.call("estop")["estopped"] is True
    from firmware.api.auth import Technicians
    Technicians(daemon.state / "technicians.json").add("zhao", "zhao-token-0123")
    with Client(daemon.socket, technician=("zhao", "zhao-token-0123")) as client:
        assert client.call("estop", {"release": True})["estopped"] is False


def test_connections_from_many_uids_stay_within_the_limit(
        daemon: Daemon, many_uids: list[int]) -> None:
    """Floods from several uids: each uid has its own share, all together the overall
    limit; the refused are told so and cost no log row."""
    limit = 30
    saved = daemon.api.server.max_clients
    daemon.call(lambda: setattr(daemon.api.server, "max_clients", limit))
    daemon.api.eventlog.flush()
    since = max((r["seq"] for r in daemon.rows("api.client.dropped")), default=0)
    held: list[socket.socket] = []
    try:
        for _ in range(limit + 20):
            held.append(raw(daemon))
        time.sleep(0.3)
        clients = daemon.call(lambda: len(daemon.api.server.clients))
        assert clients <= limit
        # One wait for all of them: the admitted stay silent, the refused are told.
        refused, waiting = 0, list(held)
        deadline = time.monotonic() + 10.0     # generous: a loaded host answers late
        while waiting and refused < 20 and time.monotonic() < deadline:
            ready, _, _ = select.select(waiting, [], [], 0.2)
            for sock in ready:
                waiting.remove(sock)
                data = sock.recv(4096)
                refused += b"too many connections" in data or data == b""
        assert refused >= 20
    finally:
        for sock in held:
            sock.close()
        daemon.call(lambda: setattr(daemon.api.server, "max_clients", saved))
    daemon.api.eventlog.flush()
    # (The table plays on meanwhile: only the API's own rows are counted.)
    assert len([r for r in daemon.rows("api") if r["seq"] > since]) < 10


def test_a_session_does_not_travel_to_another_connection(daemon: Daemon) -> None:
    """A session belongs to the connection that logged in: nothing the login returned,
    sent on another connection, opens one there; logout ends it."""
    unlock(daemon)
    clear = b'{"id": 2, "method": "clear", "params": {"fault": "E99"}}\n'
    with raw(daemon) as first, raw(daemon) as second:
        first.sendall(login_line("li", TOKEN))
        (login,) = replies(first, 1)
        assert login["ok"]
        carried = json.dumps(login["result"])
        second.sendall(b'{"id": 3, "method": "clear", "params": {"fault": "E99"}, '
                       b'"session": ' + carried.encode() + b"}\n")
        second.sendall(b'{"id": 4, "method": "clear", "params": {"fault": "E99"}, '
                       b'"auth": ' + carried.encode() + b"}\n")
        second.sendall(clear)
        got = replies(second, 3)
        first.sendall(clear + b'{"id": 5, "method": "logout"}\n'
                      + clear.replace(b'"id": 2', b'"id": 6'))
        mine = {r["id"]: r for r in replies(first, 3)}
    assert not any(r["ok"] for r in got)
    # (Replies come as each is done: the parser's refusal before the others.)
    assert sorted(r["error"]["code"] for r in got) == ["bad_request", "unauthorized",
                                                       "unauthorized"]
    assert mine[2]["error"]["code"] == "not_found"        # ran as li on its own connection
    assert mine[5]["ok"] and mine[6]["error"]["code"] == "unauthorized"


def test_login_takes_the_same_work_for_known_and_unknown_names(
        daemon: Daemon, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """A wrong token for a known name and any token for an unknown name both compute
    one argon2id hash at the same cost, so timing does not tell them apart. The times
    are printed (never asserted: the machine is shared)."""
    costs: list[tuple[int, int, int]] = []
    real = auth._argon2

    def counting(token: str, salt: bytes, m: int, t: int, p: int) -> bytes:
        costs.append((m, t, p))
        return real(token, salt, m, t, p)
    monkeypatch.setattr(auth, "_argon2", counting)
    times: dict[str, list[float]] = {"known": [], "unknown": []}
    hashes: dict[str, list[tuple[int, int, int]]] = {"known": [], "unknown": []}
    for i in range(8):
        for kind, name in (("known", "li"), ("unknown", f"nobody{i}")):
            unlock(daemon)
            costs.clear()
            with raw(daemon) as sock:
                started = time.perf_counter()
                sock.sendall(login_line(name, f"wrong-token-{i:04d}"))
                (reply,) = replies(sock, 1)
                times[kind].append(time.perf_counter() - started)
            assert reply["error"]["code"] == "forbidden"
            assert reply["error"]["message"].startswith("wrong technician name or token")
            hashes[kind] += costs
    unlock(daemon)
    assert len(hashes["known"]) == len(hashes["unknown"]) == 8
    assert set(hashes["known"]) == set(hashes["unknown"])
    with capsys.disabled():
        print(f"\nlogin refusal median: known name {statistics.median(times['known'])*1e3:.1f}"
              f" ms, unknown name {statistics.median(times['unknown'])*1e3:.1f} ms")
