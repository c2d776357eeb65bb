"""The event log's writer when a commit reports an error although its rows reached the
disk (an fsync that fails after the WAL frames were written: SQLite's recovery on
the next connection finds them committed). Retrying the same rows under the same ids
met UNIQUE constraint failed for ever: E96 after every clear, the log ended."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from firmware.state.eventlog import EventLog, LogReader


def test_rows_a_failed_commit_did_write_are_neither_lost_nor_written_twice(
        tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "events.sqlite"
    log = EventLog(path)
    errors: list[BaseException] = []
    log.on_failure = errors.append
    log.record({"t": 0.0, "kind": "key", "n": 0})
    assert log.flush()
    commit = log._commit
    calls = 0

    def written_then_failed(conn, rows) -> None:
        nonlocal calls
        calls += 1
        commit(conn, rows)
        if calls == 1:
            log._last_id, log._head = before        # as if COMMIT had not returned
            raise sqlite3.OperationalError("disk I/O error")

    before = (log._last_id, log._head)
    monkeypatch.setattr(log, "_commit", written_then_failed)
    for n in (1, 2, 3):
        log.record({"t": float(n), "kind": "key", "n": n})
    assert log.flush()
    assert [type(e) for e in errors] == [sqlite3.OperationalError]
    for n in (4, 5):
        log.record({"t": float(n), "kind": "key", "n": n})
    assert log.flush()
    log.close()
    assert log.failure is None, log.failure
    assert len(errors) == 1
    reader = LogReader(path)
    assert [r["n"] for r in reader.query(kind="key")] == [0, 1, 2, 3, 4, 5]
    ok, found = reader.verify_chain()
    assert ok, found
