"""TCP (`[api] tcp = true`, issue 22): its own slots, which one address cannot take
all of; a session for everything but `login`; the e-stop without one only from the
networks configured for it."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator

import pytest

from firmware.api import server as api_server
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
    """Attack: one client held all TCP slots (they were counted as one peer, "tcp")."""
    _, address = tcp
    held = [connect(address) for _ in range(api_server.TCP_PER_HOST)]
    try:
        with connect(address) as extra:
            said = extra.makefile("rb").readline()
        assert b"too many TCP connections from 127.0.0.1" in said
    finally:
        for sock in held:
            sock.close()


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
