"""Guessing tokens: counted before the hash, never evicted, never flooding the log;
argon2id hashes, long tokens, old hashes upgraded."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import time
from typing import Any

import pytest

from firmware.api import auth
from firmware.api.auth import Technicians
from tests.console.conftest import TOKEN, Daemon

from .conftest import login_line, raw, replies


def count_checks(daemon: Daemon) -> list[str]:
    """Start counting the token hashes the daemon computes; returns the live list."""
    checked: list[str] = []
    technicians = daemon.api.server.technicians
    verify = technicians.verify

    def counting(name: str, token: str) -> bool:
        checked.append(name)
        return verify(name, token)
    technicians.verify = counting     # type: ignore[method-assign]
    return checked


@pytest.fixture(autouse=True)
def lockouts_outlast_the_test(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's clock runs at x50: a lockout of 50 table-seconds ends after about a
    second of the machine's, and under load a test's guesses outlasted it (12 of 48
    pipelined guesses hashed, not 3). Here a lock holds until the test unlocks it."""
    monkeypatch.setattr(daemon.api.server.lockout, "lock_s", 1e6)


def unlock(daemon: Daemon) -> None:
    lockout = daemon.api.server.lockout
    counts = getattr(lockout, "_counts", None)
    daemon.call((counts if counts is not None else lockout._by_name).clear)


def test_pipelined_guesses_are_counted_before_they_are_checked(daemon: Daemon) -> None:
    """Attack: 1,008 wrong guesses pipelined on 63 connections were all checked (the
    lockout was read before the hash queue and counted after)."""
    unlock(daemon)
    checked = count_checks(daemon)
    failures = daemon.ctl.config.api.lockout_failures
    socks = [raw(daemon) for _ in range(12)]
    try:
        for n, sock in enumerate(socks):
            sock.sendall(b"".join(login_line("li", f"guess-{n:03d}-{i:04d}", i)
                                  for i in range(1, 11)))
        got = [r for sock in socks for r in replies(sock, 10)]
    finally:
        for sock in socks:
            sock.close()
    assert len(got) == 120 and not any(r["ok"] for r in got)
    assert checked.count("li") == failures, f"{checked.count('li')} guesses were hashed"
    assert sum("locked out" in r["error"]["message"] for r in got) >= 120 - failures
    unlock(daemon)


def test_spraying_names_does_not_evict_a_count(daemon: Daemon) -> None:
    """Attack: 4 wrong, failures on 1,000 other names, 4 wrong, then right: never locked
    (the 1,000-name table forgot the count)."""
    unlock(daemon)
    failures = daemon.ctl.config.api.lockout_failures
    first = failures - 1
    with raw(daemon) as sock:
        for i in range(first):
            sock.sendall(login_line("li", f"wrong-token-{i:04d}", i))
            replies(sock, 1)
        sock.sendall(b"".join(login_line(f"name{i}", "some-guess-00", 100 + i)
                              for i in range(1000)))
        sprayed = replies(sock, 1000)
        sock.sendall(login_line("li", "wrong-token-last", 2000))
        (last,) = replies(sock, 1)
        sock.sendall(login_line("li", TOKEN, 2001))
        (right,) = replies(sock, 1)
    assert not any(r["ok"] for r in sprayed)
    assert "now locked out" in last["error"]["message"]
    assert not right["ok"] and "locked out" in right["error"]["message"]
    unlock(daemon)


def test_a_locked_name_typed_another_way_is_still_locked(daemon: Daemon) -> None:
    """Attack: li locked out, then guesses as ｌｉ (full width) or Zoë decomposed: the
    token check knows them as li, but the lockout counted them as unknown names."""
    unlock(daemon)
    failures = daemon.ctl.config.api.lockout_failures
    with raw(daemon) as sock:
        sock.sendall(b"".join(login_line("li", f"wrong-token-{i:04d}", i)
                              for i in range(failures)))
        replies(sock, failures)
        sock.sendall(login_line("ｌｉ", TOKEN, 99))
        (right,) = replies(sock, 1)
    assert not right["ok"] and "locked out" in right["error"]["message"]
    unlock(daemon)


def test_a_flood_on_a_locked_name_writes_a_few_rows(daemon: Daemon,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: requests for a locked-out name wrote 18.8k rows/s and rotated the whole
    history away in ~11 s. Refusals are now one row per name and window, with a count."""
    # A refusal window (60 table-seconds) lasts about a second of the machine's: under
    # load the flood outlasted several, one first row each. Held open for the flood.
    monkeypatch.setattr(daemon.api.server.refusals, "window_s", 1e6)
    unlock(daemon)
    failures = daemon.ctl.config.api.lockout_failures
    since = max((r["seq"] for r in daemon.rows("technician.refused")), default=0)
    flood = 3000
    with raw(daemon) as sock:
        sock.sendall(b"".join(login_line("li", f"flood-token-{i:05d}", i)
                              for i in range(flood)))
        got = replies(sock, flood)
        # Sprayed unknown names share one key.
        sock.sendall(b"".join(login_line(f"who{i}", "flood-token-x", i) for i in range(500)))
        replies(sock, 500)
    assert sum("locked out" in r["error"]["message"] for r in got) >= flood - failures
    # The table plays on meanwhile and logs its hands: only the refusals' rows count.
    written = len([r for r in daemon.rows("technician.refused") if r["seq"] > since])
    assert written < 40, f"{written} rows for {flood + 500} refused logins"
    # The window closes with one row that counts the rest.
    daemon.call(lambda: daemon.api.server.refusals.flush(everything=True))
    repeated = daemon.rows("technician.refused.repeated")
    assert sum(r["count"] for r in repeated if r["name"] == "li") >= flood - failures - 1
    assert any(r["name"] == "<unknown names>" and r["names"] for r in repeated)
    unlock(daemon)


def test_tokens_are_long_and_hashed_with_argon2id(tmp_path: Any) -> None:
    technicians = Technicians(tmp_path / "t.json")
    with pytest.raises(ValueError, match="12 to 1024"):
        technicians.add("li", "short-tok")           # 9 characters
    technicians.add("li", "a-long-enough-token")
    entry = json.loads((tmp_path / "t.json").read_text())["technicians"]["li"]
    assert entry["kdf"] == "argon2id" and entry["m"] >= 19456 and entry["t"] >= 2
    assert technicians.verify("li", "a-long-enough-token")
    assert not technicians.verify("li", "a-long-enough-tokeN")


def test_an_old_scrypt_hash_is_upgraded_at_the_next_login(tmp_path: Any) -> None:
    path = tmp_path / "t.json"
    salt = bytes(range(16))
    old = hashlib.scrypt(b"old-token", salt=salt, n=2 ** 14, r=8, p=1, dklen=32)
    path.write_text(json.dumps({"technicians": {"li": {
        "salt": salt.hex(), "hash": old.hex(), "kdf": "scrypt", "n": 2 ** 14, "r": 8,
        "p": 1}}}))
    technicians = Technicians(path)
    assert not technicians.verify("li", "wrong-token")
    assert json.loads(path.read_text())["technicians"]["li"]["kdf"] == "scrypt"
    assert technicians.verify("li", "old-token")
    entry = json.loads(path.read_text())["technicians"]["li"]
    assert entry["kdf"] == "argon2id" and entry["m"] == auth.DEFAULT_COST.memory_kib
    assert technicians.verify("li", "old-token")
    assert path.stat().st_mode & 0o777 == 0o600


def test_guesses_per_second_accepted_stay_at_the_lockout(daemon: Daemon) -> None:
    """What a guesser gets through in a few seconds: the lockout's few, not hundreds."""
    unlock(daemon)
    checked = count_checks(daemon)
    failures = daemon.ctl.config.api.lockout_failures
    started = time.monotonic()
    socks = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(8)]
    for sock in socks:
        sock.settimeout(20)
        sock.connect(str(daemon.socket))
        sock.sendall(b"".join(login_line("li", f"rate-{i:06d}-xx", i) for i in range(100)))
    for sock in socks:
        replies(sock, 100)
        sock.close()
    assert time.monotonic() - started < 30
    assert checked.count("li") <= failures
    unlock(daemon)


def test_open_diagnoses_cannot_flood_the_log(daemon: Daemon) -> None:
    """Attack: `diagnose` needs no login and wrote one `diagnosis` row per request, so
    any local user could pipeline it and rotate the event history away (refusals were
    aggregated, this was not). Open diagnoses are now one row per symptom and window."""
    before = len(daemon.rows("diagnosis"))
    count = 300
    request = json.dumps({"id": 1, "method": "diagnose",
                          "params": {"symptom": "lid_not_lowering"}}).encode() + b"\n"
    with raw(daemon) as sock:
        sock.sendall(request * count)
        got = replies(sock, count)
    assert all(r["ok"] for r in got), got[0]
    written = len(daemon.rows("diagnosis")) - before
    assert written <= 2, f"{written} rows for {count} open diagnoses"


def test_one_patient_uid_never_locks_a_name_for_the_others() -> None:
    """Attack: five guesses, wait out the lock, again: after about 80 minutes one uid had
    locked the name for every uid, its technician included."""
    from firmware.api.guards.lockout import Lockout
    from mjtable_core.clock import VirtualClock

    clock = VirtualClock()
    lockout = Lockout(clock, failures=5, lock_s=300)
    guesser = lockout.keys("li", "uid:1001", known=True)
    for _ in range(40):                         # 200 guesses over 200 minutes
        for _ in range(5):
            lockout.attempt(guesser)
        clock.run_until(clock.now() + 301)
    assert lockout.locked_for(lockout.keys("li", "uid:1000", known=True)) == 0


def test_an_all_uids_lockout_does_not_blame_the_victims_uid(daemon: Daemon) -> None:
    """When guessers at many uids locked a name for all, the technician's own good login
    was told the lock was after wrong tokens "from" the technician's own uid."""
    lockout = daemon.api.server.lockout

    def guessers() -> None:
        for uid in range(2000, 2100):
            for _ in range(lockout.failures):
                lockout.attempt(lockout.keys("li", f"uid:{uid}", known=True))
    daemon.call(guessers)
    try:
        with raw(daemon) as sock:
            sock.sendall(login_line("li", TOKEN))
            (reply,) = replies(sock, 1)
    finally:
        unlock(daemon)
    message = reply["error"]["message"]
    assert re.search(r"locked out for every uid for another \d+ s", message), message
    assert "uid:" not in message
