"""One daemon per table: a second `mjtable run` on the same state directory or socket
is refused at once, and the event log's writer never ends silently (E96)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware.service.tablelock import TableBusy, lock_table
from firmware.state.eventlog import EventLog, LogReader

from .conftest import start_daemon


def _wait(what: str, done, limit_s: float = 60.0) -> None:
    """Poll `done` until true; generous, as a loaded machine may be slow."""
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _rows(path: Path) -> int:
    try:
        return len(LogReader(path).query(limit=10_000))
    except (sqlite3.Error, FileNotFoundError):
        return 0


def test_a_second_lock_on_a_table_names_the_holder_and_a_released_one_is_free(
        tmp_path: Path) -> None:
    state, sock = tmp_path / "state", tmp_path / "run" / "api.sock"
    first = lock_table(state, sock)
    with pytest.raises(TableBusy, match=f"pid {os.getpid()}.*state directory"):
        lock_table(state, tmp_path / "other.sock")
    with pytest.raises(TableBusy, match=f"pid {os.getpid()}.*socket"):
        lock_table(tmp_path / "other-state", sock)
    first.release()
    # The lock files stay; the lock itself went with its holder.
    lock_table(state, sock).release()


@pytest.mark.skipif(sys.platform != "linux", reason="Unix sockets on Linux")
def test_a_second_daemon_exits_2_at_once_and_the_first_runs_on(tmp_path: Path) -> None:
    state, sock = tmp_path / "state", tmp_path / "a.sock"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    run = [sys.executable, "-m", "mjtable.cli", "run", "--plain", "--speed", "50"]
    first = subprocess.Popen([*run, "--state-dir", str(state), "--socket", str(sock)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        log = state / "events.sqlite"
        _wait("the first daemon's socket and log", lambda: sock.exists() and _rows(log) > 0)
        for args, where in (
                (["--state-dir", str(state), "--socket", str(tmp_path / "b.sock")],
                 f"state directory {state}"),
                (["--state-dir", str(tmp_path / "state2"), "--socket", str(sock)],
                 f"socket {sock}")):
            began = time.monotonic()
            second = subprocess.run([*run, *args], capture_output=True, text=True,
                                    timeout=60, env=env)
            print(f"second daemon refused in {time.monotonic() - began:.2f} s")
            assert second.returncode == 2, second.stderr
            assert second.stdout == ""
            assert second.stderr.splitlines() == [
                f"mjtable: another table daemon (pid {first.pid}) is running on {where}; "
                "stop that one first"]
        # The first one is untouched: its socket is there and its log keeps growing.
        assert sock.exists() and first.poll() is None
        seen = _rows(log)
        _wait("the first daemon's log to grow", lambda: _rows(log) > seen)
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=60)
    assert first.returncode == 0


def test_a_log_writer_that_meets_a_storage_error_says_so_and_carries_on(
        tmp_path: Path) -> None:
    """The issue's case: a second writer on the same file made the first one's thread
    die of IntegrityError and the log ended without a word."""
    path = tmp_path / "events.sqlite"
    errors: list[BaseException] = []
    first = EventLog(path)
    first.on_failure = errors.append
    first.record({"t": 1.0, "kind": "key"})
    assert first.flush()
    intruder = EventLog(path)
    intruder.record({"t": 1.5, "kind": "key"})
    assert intruder.flush()
    intruder.close()
    first.record({"t": 2.0, "kind": "key"})
    first.flush()
    assert [type(e) for e in errors] == [sqlite3.IntegrityError]
    assert isinstance(first.failure, sqlite3.IntegrityError)
    first.record({"t": 3.0, "kind": "key"})     # the writer lives on and tries again
    assert first.flush()
    first.close()


def test_the_daemon_raises_e96_when_its_event_log_cannot_be_written(
        tmp_path: Path, monkeypatch) -> None:
    daemon, stop = start_daemon(tmp_path)
    try:
        eventlog = daemon.api.eventlog
        commit = eventlog._commit

        def full(conn, rows):
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(eventlog, "_commit", full)
        _wait("E96", lambda: daemon.call(lambda: [
            f for f in daemon.ctl.faults if f.active and f.id == "storage.failed"]))
        faults = daemon.call(lambda: [(f.code, f.where, f.evidence["error"])
                                      for f in daemon.ctl.faults if f.active])
        assert faults == [("E96", "eventlog",
                           "OperationalError: database or disk is full")]
        # Stopped through the one shutdown path: the whole table is latched.
        assert daemon.call(lambda: daemon.ctl.outputs.scopes) == {"table"}
        # The disk comes back: the rows held meanwhile reach the log, E96 among them.
        monkeypatch.setattr(eventlog, "_commit", commit)
        daemon.call(lambda: daemon.ctl.emit("key", key="probe"))
        assert eventlog.flush()
        assert eventlog.failure is None
        assert [r["id"] for r in eventlog.query(kind="fault")] == ["storage.failed"]
    finally:
        stop()
