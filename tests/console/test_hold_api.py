"""Hold-to-run over the daemon's socket: only the connection that started a hold
keeps it, and that connection closing stops the motor at once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.console.conftest import TOKEN, Daemon, raw, replies, start_daemon


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    # Real speed: the hold's 0.5 s cap is table time.
    running, stop = start_daemon(tmp_path_factory.mktemp("state"), speed=1.0,
                                  players=False)
    try:
        yield running
    finally:
        stop()


def ask(sock, request_id: int, method: str, params: dict | None = None,
        auth: dict | None = None) -> dict:
    line = {"id": request_id, "method": method, "params": params or {}}
    if auth:
        line["auth"] = auth
    sock.sendall(json.dumps(line).encode() + b"\n")
    (reply,) = replies(sock, 1, streams=False)
    return reply


def motor(daemon: Daemon) -> bool:
    return bool(daemon.call(lambda: daemon.ctl.hal.read("motor.dice")))


def test_only_the_holding_connection_keeps_and_closing_it_stops(table: Daemon,
                                                                tmp_path: Path) -> None:
    with raw(table) as first, raw(table) as other:
        assert ask(first, 1, "login", auth={"name": "li", "token": TOKEN})["ok"]
        assert ask(first, 2, "testmode", {"on": True, "force": True})["ok"]
        started = ask(first, 3, "jog_hold", {"motor": "dice", "direction": "fwd"})
        hold = started["result"]["hold"]
        assert motor(table)
        # Another connection, even logged in as the same technician, keeps nothing.
        refused = ask(other, 4, "jog_keep", {"hold": hold})
        assert not refused["ok"] and refused["error"]["code"] == "refused"
        assert ask(other, 5, "login", auth={"name": "li", "token": TOKEN})["ok"]
        assert not ask(other, 6, "jog_keep", {"hold": hold})["ok"]
        assert ask(first, 7, "jog_keep", {"hold": hold})["ok"]
        closed = time.monotonic()
    # Both connections are gone: the motor stopped with them, before the cap.
    while motor(table):
        assert time.monotonic() - closed < 0.4, "still running after the connection closed"
        time.sleep(0.01)
    (ended,) = [r for r in table.rows("service.jog") if r.get("stopped")][-1:]
    assert ended["stopped"] == "released"


def test_a_stop_needs_no_login_and_a_keep_without_one_is_refused(table: Daemon) -> None:
    with raw(table) as tech, raw(table) as passer:
        assert ask(tech, 1, "login", auth={"name": "li", "token": TOKEN})["ok"]
        assert ask(tech, 2, "testmode", {"on": True, "force": True})["ok"]
        hold = ask(tech, 3, "jog_hold", {"motor": "dice", "direction": "fwd"})["result"]["hold"]
        assert not ask(passer, 4, "jog_hold", {"motor": "dice", "direction": "fwd"})["ok"]
        assert ask(passer, 5, "jog_stop")["result"]["stopped"] == "dice"
        assert not motor(table)
        assert not ask(tech, 6, "jog_keep", {"hold": hold})["ok"]     # never again
        assert not motor(table)
