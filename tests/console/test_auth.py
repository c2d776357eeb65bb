"""Named technicians against a running daemon: no name, wrong token, lockout on the
table's clock, correct token — and the event log names who did and who tried."""

from __future__ import annotations

import json
import time

import pytest

from firmware.api.auth import Technicians
from firmware.api.client import Client, ClientError

from .conftest import SPEED, TOKEN, Daemon


def refused(daemon: Daemon, method: str, params: dict, who: tuple[str, str] | None) -> str:
    with Client(daemon.socket, technician=who) as client, \
            pytest.raises(ClientError) as caught:
        client.call(method, params)
    return caught.value.code or ""


def test_tokens_are_stored_only_as_salted_hashes(daemon: Daemon) -> None:
    text = (daemon.state / "technicians.json").read_text()
    entry = json.loads(text)["technicians"]["li"]
    assert TOKEN not in text
    assert entry["kdf"] == "argon2id" and entry["m"] >= 19456
    assert len(bytes.fromhex(entry["salt"])) == 16
    assert (daemon.state / "technicians.json").stat().st_mode & 0o777 == 0o600
    other = Technicians(daemon.state / "t2.json")
    other.add("li", TOKEN)
    assert json.loads((daemon.state / "t2.json").read_text())["technicians"]["li"][
        "salt"] != entry["salt"]


def test_privileged_methods_need_a_name(daemon: Daemon) -> None:
    for method, params in [("jog", {"motor": "dice", "direction": "fwd", "seconds": 0.2}),
                           ("test", {"mechanism": "lid"}), ("clear", {"fault": 1}),
                           ("testmode", {"on": True}), ("estop", {"release": True})]:
        assert refused(daemon, method, params, None) == "unauthorized"
    rows = daemon.rows("technician.refused")
    assert {r["action"] for r in rows if r["name"] is None} >= {"jog", "test", "clear",
                                                                "testmode", "estop"}


def test_wrong_token_lockout_then_the_right_one(daemon: Daemon,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Six wall seconds at x50, not the daemon's one: beside a second suite, one second
    # passed between the locking guess and the next call, and li was let in again.
    lock_s = 6 * SPEED
    monkeypatch.setattr(daemon.api.server.lockout, "lock_s", lock_s)
    jog = {"motor": "dice", "direction": "fwd", "seconds": 0.5}
    assert refused(daemon, "jog", jog, ("li", "wrong-token-1")) == "forbidden"
    assert refused(daemon, "jog", jog, ("nobody", TOKEN)) == "forbidden"
    assert refused(daemon, "jog", jog, ("li", "wrong-token-2")) == "forbidden"
    locking = time.monotonic()
    assert refused(daemon, "jog", jog, ("li", "wrong-token-3")) == "forbidden"  # locks li
    with Client(daemon.socket, technician=("li", TOKEN)) as client, \
            pytest.raises(ClientError, match="locked out"):
        client.call("jog", jog)
    tried = [(r["name"], r["reason"]) for r in daemon.rows("technician.refused")]
    assert ("nobody", "wrong name or token") in tried
    assert ("li", "locked out") in tried
    # The lockout runs on the table's clock: lock_s table seconds, then li is let in.
    unlocked = locking + lock_s / SPEED
    while True:
        with Client(daemon.socket, technician=("li", TOKEN)) as client:
            try:
                client.call("testmode", {"on": False})    # logged in: the lockout is over
                break
            except ClientError as exc:
                assert "locked out" in str(exc), exc
                assert time.monotonic() < unlocked + 30, "still locked out"
        time.sleep(0.2)
    assert time.monotonic() > unlocked - 0.1, "let in before the lockout ended"
    with Client(daemon.socket, technician=("li", TOKEN)) as client:
        try:
            result = client.call("jog", jog)
        except ClientError as exc:
            # Motion waits for test mode while the simulated players hold a hand.
            assert exc.code == "refused" and "a hand is in play" in str(exc)
            result = None
    actions = daemon.rows("technician.action")
    assert any(r["name"] == "li" and r["action"] == "jog" for r in actions)
    if result is not None:
        assert result["motor"] == "dice" and result["by"] == "li"
        jogs = daemon.rows("service.jog")
        assert jogs[-1]["by"] == "li" and jogs[-1]["stopped"] == "time up"


def test_estop_is_open_release_needs_a_technician(daemon: Daemon) -> None:
    with Client(daemon.socket) as client:
        assert client.call("estop")["estopped"] is True
        status = client.call("status")
        assert status["estopped"] and status["display"] == "ES"
        assert all(not v["value"] or v["value"] == "off"
                   for k, v in status["signals"].items() if k.startswith("motor."))
    jog = {"motor": "dice", "direction": "fwd", "seconds": 0.2}
    with Client(daemon.socket, technician=("li", TOKEN)) as client:
        with pytest.raises(ClientError, match="e-stop is active"):
            client.call("jog", jog)
        assert client.call("estop", {"release": True})["estopped"] is False
    assert daemon.rows("estop.released")[-1]["by"] == "li"
