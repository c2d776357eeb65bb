"""The persistent event log: WAL, rotation, queries, export, runs, and events from a
simulated table."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from firmware.state import eventlog
from firmware.state.durable import Durable, Ticket, shared
from firmware.state.eventlog import EventLog, LogReader
from mjtable_core.config import load_config
from simulator.harness.runner import assemble


def test_wal_full_sync_rotation_and_queries(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    log = EventLog(path, max_rows=1000, wall=lambda: 1000.0)
    for i in range(2500):
        log.record({"t": i / 10, "kind": "fault" if i % 5 == 0 else "key", "id": "head.jam",
                    "n": i}, cycle=i // 100)
    assert log.flush()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = log.query(limit=5000)
    assert len(rows) == 1000 and rows[-1]["n"] == 2499 and rows[0]["n"] == 1500
    faults = log.query(kind="fault", limit=10)
    assert [r["n"] for r in faults] == list(range(2450, 2500, 5))
    assert faults[0]["id"] == "head.jam" and faults[0]["kind"] == "fault"
    assert {r["cycle"] for r in log.query(cycle=20, limit=5000)} == {20}
    assert log.query(since=1001.0) == []
    log.close()


def test_runs_survive_reopening_and_export_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite"
    first = EventLog(path)
    first.record({"t": 1.0, "kind": "phase", "state": "play"}, cycle=0)
    first.close()
    second = EventLog(path)
    second.record({"t": 2.0, "kind": "phase", "state": "opening"}, cycle=1)
    second.record({"t": 2.5, "kind": "phase.sub", "state": "x"}, cycle=1)
    second.record({"t": 2.6, "kind": "phases", "state": "not a sub-kind"}, cycle=1)
    second.close()
    reader = LogReader(path)
    assert reader.run == 2
    out = io.StringIO()
    assert reader.export(out, kind="phase") == 3
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["run"], r["state"]) for r in lines] == [(1, "play"), (2, "opening"), (2, "x")]


class StalledDisk(Durable):
    """A writer that never runs its jobs, as a disk that does not answer."""

    def submit(self, key: object, job: object, delay: float = 0.0) -> Ticket:
        return Ticket()


def test_a_full_queue_drops_without_blocking_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eventlog, "QUEUE_LIMIT", 1)
    log = EventLog(tmp_path / "e.sqlite", writer=StalledDisk())
    log.record({"t": 0.0, "kind": "key"})      # the one row a full queue holds
    for i in range(1, 51):
        log.record({"t": float(i), "kind": "key"})
    assert log.dropped == 50
    log.writer = shared()                       # the disk answers again
    log._scheduled = False
    log.record({"t": 99.0, "kind": "key"})
    log.flush()
    kinds = [r["kind"] for r in log.query(limit=100)]
    assert "log.dropped" in kinds
    log.close()


def test_a_simulated_hand_logs_keys_phases_and_commitments(tmp_path: Path) -> None:
    bench = assemble(load_config(), 2)
    log = EventLog(tmp_path / "e.sqlite")
    log.attach(bench.controller)
    bench.controller.start()
    bench.players.start()
    bench.clock.run_until(400, until=lambda: bench.controller.cycle.number >= 1
                          and bench.controller.cycle.state == "play")
    log.flush()
    kinds = {r["kind"] for r in log.query(limit=10000)}
    assert {"start", "key", "phase", "walls.committed", "build.staged"} <= kinds
    committed = log.query(kind="walls.committed")
    assert committed[0]["cycle"] == 1 and len(committed[0]["commitment"]) >= 32
    log.close()
