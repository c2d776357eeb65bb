"""The venue tests' fixtures: `loopback_only`, no connection may leave 127.0.0.1."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest


def _loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        try:
            return ipaddress.ip_address(address[0]).is_loopback
        except ValueError:
            return address[0] == "localhost"
    return True         # a Unix socket


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every connect() to an address off the loopback is refused and recorded."""
    tried: list[Any] = []
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        if not _loopback(address):
            tried.append(address)
            raise OSError(f"test: connection to {address} refused (loopback only)")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield tried
    assert tried == [], f"requests left the loopback: {tried}"
