"""Who may do what: default deny, motion needs a technician and waits for test mode
while a hand is in play, sessions instead of replayable tokens, peer credentials, and
a lockout that never holds the table stopped."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from firmware.api.auth import Technicians
from firmware.api.client import Client, ClientError
from firmware.api.server import ApiServer
from mjtable_core.clock import VirtualClock
from tests.console.conftest import TOKEN, Daemon

from .conftest import login_line, raw, replies

JOG = {"motor": "dice", "direction": "fwd", "seconds": 0.2}


def wait_for(daemon: Daemon, predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not daemon.call(lambda: predicate(daemon.ctl)):
        assert time.monotonic() < deadline, "the table never got there"
        time.sleep(0.02)


def quiet_hand_in_play(ctl: Any) -> bool:
    """Players hold a hand and nothing moves: where a check would move the lid."""
    return (ctl.cycle.state == "play" and ctl.cycle.set_in_play is not None
            and not ctl.build.running and ctl.build.state != "sweeping"
            and not any(f.active for f in ctl.faults))


def motor_writes(daemon: Daemon) -> list[tuple[str, Any]]:
    """Start recording every motor the daemon turns on; returns the live list."""
    seen: list[tuple[str, Any]] = []

    def install() -> None:
        hal = daemon.ctl.hal
        write = hal.write

        def recording(name: str, value: Any) -> None:
            if name.startswith("motor.") and value not in (False, "off", None):
                seen.append((name, value))
            write(name, value)
        hal.write = recording
    daemon.call(install)
    return seen


def test_open_diagnose_moves_nothing_during_play(daemon: Daemon) -> None:
    """Attack: `diagnose lid_not_lowering` with no login opened and closed the lid and
    ran the dice motor during play."""
    wait_for(daemon, quiet_hand_in_play)
    seen = motor_writes(daemon)
    with Client(daemon.socket) as client:
        for symptom in ("lid_not_lowering", "dice_not_spinning"):
            result = client.call("diagnose", {"symptom": symptom})
            assert result["symptom"] == symptom
        with pytest.raises(ClientError) as caught:
            client.call("diagnose", {"symptom": "lid_not_lowering", "check": True})
        assert caught.value.code == "unauthorized"
    assert not [w for w in seen if w[0] in ("motor.lid", "motor.dice")], seen
    # A technician's check is still refused while the players hold a hand.
    wait_for(daemon, quiet_hand_in_play)
    with Client(daemon.socket, technician=("li", TOKEN)) as client:
        with pytest.raises(ClientError, match="a hand is in play") as caught:
            client.call("diagnose", {"symptom": "lid_not_lowering", "check": True})
        assert caught.value.code == "refused"
        with pytest.raises(ClientError, match="a hand is in play"):
            client.call("jog", JOG)
    assert not [w for w in seen if w[0] in ("motor.lid", "motor.dice")], seen


def test_every_method_has_a_class_or_the_daemon_does_not_start(daemon: Daemon) -> None:
    from firmware.api import access

    with Client(daemon.socket) as client:
        info = client.call("info")
    assert set(info["access"]) == set(info["methods"])
    assert info["access"]["jog"] == "motion" and info["access"]["status"] == "open"

    class Extra(ApiServer):
        async def _walls(self, client: Any, params: dict[str, Any], who: str | None) -> Any:
            return {}       # written without @method(...): no class

    def build() -> None:
        server = daemon.api.server
        Extra(daemon.ctl, server.maintenance, server.technicians, None)
    with pytest.raises(access.Unclassified, match="walls"):
        daemon.call(build)


def test_a_captured_request_cannot_be_replayed(daemon: Daemon) -> None:
    """Attack: a captured jog request (token inside) could be replayed. Now the token
    only opens a session on its own connection."""
    jog_line = b'{"id": 2, "method": "clear", "params": {"fault": "E99"}}\n'
    with raw(daemon) as first:
        first.sendall(login_line("li", TOKEN))
        (login,) = replies(first, 1)
        first.sendall(jog_line)
        (cleared,) = replies(first, 1)
    assert login["ok"] and login["result"]["technician"] == "li"
    assert cleared["error"]["code"] == "not_found"       # it ran, as li
    with raw(daemon) as second:
        second.sendall(jog_line)
        (replayed,) = replies(second, 1)
    assert replayed["error"]["code"] == "unauthorized"
    # A token riding on any other method than login is refused outright.
    with raw(daemon) as third:
        third.sendall(b'{"id": 3, "method": "clear", "params": {"fault": 1}, '
                      b'"auth": {"name": "li", "token": "' + TOKEN.encode() + b'"}}\n')
        (inline,) = replies(third, 1)
    assert inline["error"]["code"] == "bad_request"


def test_peer_credentials_are_logged_and_strangers_refused(daemon: Daemon) -> None:
    from firmware.api.guards.peers import Peer, admitted

    with Client(daemon.socket, technician=("li", TOKEN)) as client, \
            pytest.raises(ClientError):
        client.call("clear", {"fault": "E99"})
    login = daemon.rows("technician.login")[-1]
    assert login["uid"] == os.getuid() and login["pid"] == os.getpid()
    action = daemon.rows("technician.action")[-1]
    assert action["uid"] == os.getuid() and action["action"] == "clear"
    assert daemon.socket.stat().st_mode & 0o777 == 0o660
    stranger = Peer(uid=4242424, gid=4242424, pid=1)
    assert not admitted(stranger, gid=os.getgid() + 1 if os.getgid() != 4242424 else 0)
    assert admitted(Peer(uid=os.getuid(), gid=os.getgid(), pid=1), gid=12345)


def test_a_lockout_never_holds_the_table_stopped(daemon: Daemon) -> None:
    """Attack: five wrong tries per technician name (names are in the open log) plus the
    open e-stop held the table stopped with nobody able to release it."""
    Technicians(daemon.state / "technicians.json").add("wang", "wang-token-0123")
    failures = daemon.ctl.config.api.lockout_failures
    with raw(daemon) as sock:
        sock.sendall(b"".join(login_line("li", f"wrong-{i:08d}", i) for i in range(failures)))
        assert all(r["error"]["code"] == "forbidden" for r in replies(sock, failures))
        sock.sendall(b'{"id": 90, "method": "estop"}\n' + login_line("li", TOKEN, 91))
        estop, locked = replies(sock, 2)
    assert estop["ok"] and estop["result"]["estopped"]
    assert "locked out" in locked["error"]["message"]
    # Another technician releases it: li's lockout is li's alone.
    with Client(daemon.socket, technician=("wang", "wang-token-0123")) as client:
        assert client.call("estop", {"release": True})["estopped"] is False
    assert daemon.rows("estop.released")[-1]["by"] == "wang"


def test_lockouts_are_per_uid() -> None:
    """The same name guessed from one uid does not lock it for another."""
    from firmware.api.guards.lockout import Lockout

    clock = VirtualClock()
    lockout = Lockout(clock, failures=3, lock_s=60)
    guesser = lockout.keys("li", "uid:1001", known=True)
    for _ in range(3):
        lockout.attempt(guesser)
    assert lockout.locked_for(guesser) == 60
    assert lockout.locked_for(lockout.keys("li", "uid:1000", known=True)) == 0
    assert lockout.locked_for(lockout.keys("wang", "uid:1001", known=True)) == 0
