"""TCP (`[api] tcp = true`, issue 22): its own slots, which one address cannot take
all of; a session for everything but `login`; the e-stop without one only from the
networks configured for it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator

import pytest

from firmware.api import server as api_server
from firmware.api.guards import tcpslots
from mjtable_core import limits
from tests.console.conftest import TOKEN, Daemon, start_daemon


@pytest.fixture(scope="module")
def tcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, tuple[str, int]]]:
    running, stop = start_daemon(tmp_path_factory.mktemp("state"))
    server = running.api.server
    asyncio.run_coroutine_threadsafe(server.start_tcp("127.0.0.1", 0), running.loop).result(10)
    assert server.tcp_address is not None
    yield running, server.tcp_address
    stop()


def connect(address: tuple[str, int]) -> socket.socket:
    return socket.create_connection(address, timeout=10)


def ask(sock: socket.socket, message: dict) -> dict:
    sock.sendall(json.dumps(message).encode() + b"\n")
    return json.loads(sock.makefile("rb").readline())


def test_one_address_cannot_hold_every_tcp_slot(tcp: tuple[Daemon, tuple[str, int]]) -> None:
    """Attack: one client held all TCP slots (they were counted as one peer, "tcp"); then
    four per address, beaten from four addresses. Connections not logged in now hold
    a few slots at most, and a newcomer takes the oldest one's."""
    _, address = tcp
    held = [connect(address) for _ in range(tcpslots.UNAUTHENTICATED + 1)]
    try:
        held[0].settimeout(5)
        assert held[0].recv(100) == b""     # its slot was taken by the last
        assert ask(held[-1], {"id": 1, "method": "login",
                              "auth": {"name": "li", "token": TOKEN}})["ok"]
    finally:
        for sock in held:
            sock.close()


def from_address(address: tuple[str, int], source: str) -> socket.socket:
    return socket.create_connection(address, timeout=10, source_address=(source, 0))


def test_four_addresses_holding_every_slot_they_can_leave_room_for_a_fifth(
        tcp: tuple[Daemon, tuple[str, int]]) -> None:
    """Attack: 127.0.0.2…5 (any local user; or four LAN addresses) held 4 slots each,
    all 16, and every real client was refused."""
    _, address = tcp
    held: list[socket.socket] = []
    try:
        for n in range(2, 6):
            for _slot in range(4):
                with contextlib.suppress(OSError):
                    held.append(from_address(address, f"127.0.0.{n}"))
        time.sleep(0.3)
        with from_address(address, "127.0.0.6") as fifth:
            reply = ask(fifth, {"id": 1, "method": "login",
                                "auth": {"name": "li", "token": TOKEN}})
            assert reply.get("ok"), reply
            assert ask(fifth, {"id": 2, "method": "info"})["ok"]
    finally:
        for sock in held:
            sock.close()


def test_a_technicians_tcp_sessions_are_counted_and_capped(
        tcp: tuple[Daemon, tuple[str, int]]) -> None:
    _, address = tcp
    held: list[socket.socket] = []
    try:
        for n in range(tcpslots.PER_TECHNICIAN):
            sock = from_address(address, f"127.0.1.{n + 1}")
            held.append(sock)
            assert ask(sock, {"id": 1, "method": "login",
                              "auth": {"name": "li", "token": TOKEN}})["ok"]
        with from_address(address, "127.0.2.1") as extra:
            reply = ask(extra, {"id": 1, "method": "login",
                                "auth": {"name": "li", "token": TOKEN}})
            assert reply["error"]["code"] == "refused", reply
    finally:
        for sock in held:
            sock.close()


def test_slots_are_counted_per_network() -> None:
    lan = [tcpslots.Slot(n, limits.network(f"192.168.1.{n}"), False, True)
           for n in range(2, 6)]
    # A fifth address of the same /24 takes the oldest waiting one's slot.
    why, taken = tcpslots.place(lan, limits.network("192.168.1.77"))
    assert why is None and taken is lan[0]
    # Sessions of one /24 fill its share; a waiting one there gives its slot up.
    full = [tcpslots.Slot(n, "192.168.1.0/24", True, False)
            for n in range(tcpslots.PER_NET)]
    why, taken = tcpslots.place(full, "192.168.1.0/24")
    assert why is not None and taken is None
    why, taken = tcpslots.place(full, "10.0.0.0/24")
    assert why is None and taken is None
    assert limits.network("2001:db8::1") == "2001:db8::/64"
    assert limits.network("10.1.2.3", 16) == "10.1.0.0/16"


def test_over_tcp_everything_but_login_needs_a_session(
        tcp: tuple[Daemon, tuple[str, int]]) -> None:
    daemon, address = tcp
    with connect(address) as sock:
        for method in ("info", "status", "estop"):
            reply = ask(sock, {"id": 1, "method": method})
            assert reply["error"]["code"] == "unauthorized", method
        assert ask(sock, {"id": 2, "method": "login",
                          "auth": {"name": "li", "token": TOKEN}})["ok"]
        assert ask(sock, {"id": 3, "method": "info"})["ok"]
    assert not daemon.ctl.estopped


def test_the_estop_without_a_session_only_from_configured_networks(
        tcp: tuple[Daemon, tuple[str, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    daemon, address = tcp
    monkeypatch.setattr(daemon.api.server, "estop_networks",
                        api_server._networks("10.0.0.0/8, 127.0.0.0/8"))
    with connect(address) as sock:
        assert ask(sock, {"id": 1, "method": "estop"})["result"]["estopped"]

    async def release() -> None:
        daemon.ctl.release_estop("test")
        daemon.api.maintenance.resume_if_clear()
    asyncio.run_coroutine_threadsafe(release(), daemon.loop).result(5)


def test_a_tcp_connection_that_never_logs_in_is_dropped(
        tcp: tuple[Daemon, tuple[str, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    _, address = tcp
    monkeypatch.setattr(api_server, "TCP_LOGIN_S", 0.3)
    with connect(address) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""
        assert time.monotonic() - started < 5


def test_bad_estop_networks_are_refused_in_the_config() -> None:
    from mjtable_core.config import NETWORKS
    assert "192.168.1.0/24, ::1/128" in NETWORKS and "" in NETWORKS
    assert "192.168.1.0/33" not in NETWORKS and "lan" not in NETWORKS


def test_loopback_is_one_network_however_many_24s() -> None:
    """Attack: a local user connecting from 127.0.2.1, 127.0.3.1... (each its own /24)
    took the slot of a LAN technician who had not logged in yet after 4 connections,
    and again after every 4: no login over TCP from the LAN while it went on."""
    slots: list[tcpslots.Slot] = []

    def connect(host: str, who: str) -> None:
        why, taken = tcpslots.place(slots, limits.network(host))
        assert why is None
        if taken is not None:
            slots.remove(taken)
        slots.append(tcpslots.Slot(who, limits.network(host), False, True))
    for n in range(2, 6):
        connect(f"127.0.{n}.1", "local")
    connect("192.168.1.5", "technician")
    for n in range(6, 200):
        connect(f"127.0.{n}.1", "local")
        assert any(s.client == "technician" for s in slots), n
    assert limits.network("::ffff:127.0.9.1") == limits.network("127.0.0.1")
    assert limits.network("::ffff:192.168.1.5") == "192.168.1.0/24"
