"""A running daemon on the simulator for the attack tests (the console tests' own)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.console.conftest import Daemon, start_daemon

# Whether the daemon under test has `login`; an older one (run against these tests to
# show they fail there) takes the token on a privileged request instead.
HAS_LOGIN = {"yes": True}


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    running, stop = start_daemon(tmp_path_factory.mktemp("state"))
    HAS_LOGIN["yes"] = "login" in running.api.server.handlers
    yield running
    stop()


def raw(daemon: Daemon) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    sock.connect(str(daemon.socket))
    return sock


def replies(sock: socket.socket, count: int) -> list[dict]:
    out, buf = [], b""
    while len(out) < count:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {len(out)} replies"
        buf += chunk
        *lines, buf = buf.split(b"\n")
        out += [m for m in (json.loads(line) for line in lines if line) if "stream" not in m]
    return out


def login_line(name: str, token: str, request_id: int = 1) -> bytes:
    if not HAS_LOGIN["yes"]:
        return json.dumps({"id": request_id, "method": "clear", "params": {"fault": "E99"},
                           "auth": {"name": name, "token": token}}).encode() + b"\n"
    return json.dumps({"id": request_id, "method": "login",
                       "auth": {"name": name, "token": token}}).encode() + b"\n"
