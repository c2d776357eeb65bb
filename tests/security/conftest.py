"""A running daemon on the simulator for the attack tests (the console tests' own)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.console.conftest import Daemon, start_daemon
from tests.console.conftest import raw as console_raw
from tests.console.conftest import replies as console_replies

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
    return console_raw(daemon, timeout_s=20.0)


def replies(sock: socket.socket, count: int) -> list[dict]:
    return console_replies(sock, count, streams=False)


def login_line(name: str, token: str, request_id: int = 1) -> bytes:
    if not HAS_LOGIN["yes"]:
        return json.dumps({"id": request_id, "method": "clear", "params": {"fault": "E99"},
                           "auth": {"name": name, "token": token}}).encode() + b"\n"
    return json.dumps({"id": request_id, "method": "login",
                       "auth": {"name": name, "token": token}}).encode() + b"\n"
