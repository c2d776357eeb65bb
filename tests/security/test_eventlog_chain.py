"""A log nobody can rewrite unseen: every row chains the one before it, and
`mjtable console verify-log` names the first row changed, removed or reordered."""

from __future__ import annotations

import itertools
import shutil
import sqlite3
from pathlib import Path

import pytest

from firmware.console.cli import main
from firmware.state.eventlog import EventLog, LogReader


def make_log(directory: Path, rows: int = 60, max_rows: int = 200_000) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    # A row every 100 s: rotation deletes rows over a day old (not a flood).
    steps = itertools.count()
    log = EventLog(directory / "events.sqlite", max_rows=max_rows,
                   wall=lambda: 1000.5 + 100 * next(steps))
    for i in range(rows):
        log.record({"t": i / 4, "kind": "fault" if i % 7 == 0 else "phase", "n": i},
                   cycle=i // 10)
        if i % 25 == 0:
            log.flush()
    log.close()
    return directory


def verify(directory: Path, capsys: pytest.CaptureFixture) -> tuple[int, str]:
    code = main(["verify-log", "--state-dir", str(directory)])
    out = capsys.readouterr()
    return code, out.out + out.err


def tampered(source: Path, target: Path, *sql: str) -> Path:
    shutil.copytree(source, target)
    conn = sqlite3.connect(target / "events.sqlite")
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return target


def test_an_intact_log_verifies(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    state = make_log(tmp_path / "s")
    code, text = verify(state, capsys)
    assert code == 0 and "intact" in text and "60 rows" in text


def test_sqlite_edits_are_named(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Attack: `sqlite3 events.sqlite "UPDATE …/DELETE …"` edited history silently."""
    state = make_log(tmp_path / "s")
    cases = {
        "changed": ("UPDATE events SET data = '{\"n\":999}' WHERE id = 17", "row 17"),
        "removed": ("DELETE FROM events WHERE id = 23", "row 23 was removed"),
        "reordered": ("UPDATE events SET id = -5 WHERE id = 30;", None),
        "tail cut": ("DELETE FROM events WHERE id > 55", "rows after 55 were removed"),
    }
    for name, (sql, expected) in cases.items():
        if name == "reordered":
            target = tampered(state, tmp_path / name,
                              "UPDATE events SET id = -1 WHERE id = 30",
                              "UPDATE events SET id = 30 WHERE id = 31",
                              "UPDATE events SET id = 31 WHERE id = -1")
            expected = "row 30"
        else:
            target = tampered(state, tmp_path / name, sql)
        code, text = verify(target, capsys)
        assert code == 1, (name, text)
        assert expected in text and "TAMPERED" in text, (name, text)
    # Recomputing the edited row's hash is not enough: the rows after it still chain
    # to the old one.
    rows = sqlite3.connect(state / "events.sqlite").execute(
        "SELECT id, run, wall, t, cycle, kind, data, chain FROM events WHERE id IN (16, 17) "
        "ORDER BY id").fetchall()
    from firmware.state.eventlog import row_chain
    forged = row_chain(rows[0][7], 17, rows[1][1], rows[1][2], rows[1][3], rows[1][4],
                       rows[1][5], '{"n":999}')
    target = tampered(state, tmp_path / "rehashed",
                      f"UPDATE events SET data = '{{\"n\":999}}', chain = '{forged}' "
                      "WHERE id = 17")
    code, text = verify(target, capsys)
    assert code == 1 and "row 18" in text


def test_rotation_keeps_the_chain(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    state = make_log(tmp_path / "s", rows=2600, max_rows=1000)
    reader = LogReader(state / "events.sqlite")
    rows = reader.query(limit=5000)
    assert len(rows) == 1000 and rows[0]["seq"] > 1
    code, text = verify(state, capsys)
    assert code == 0, text
    head_id, head = reader.chain_head().split(":")
    assert int(head_id) == rows[-1]["seq"] and head == rows[-1]["chain"]


def test_export_carries_the_chain_head(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    state = make_log(tmp_path / "s", rows=5)
    assert main(["export-log", "--state-dir", str(state)]) == 0
    out = capsys.readouterr()
    head = LogReader(state / "events.sqlite").chain_head()
    assert f"chain head: {head}" in out.err
    assert out.out.strip().splitlines()[-1].count(head.split(":")[1]) == 1


def test_a_log_from_before_the_chain_starts_one(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    state = tmp_path / "s"
    state.mkdir()
    conn = sqlite3.connect(state / "events.sqlite")
    conn.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE events (id INTEGER PRIMARY KEY, run INTEGER NOT NULL, wall REAL,
            t REAL NOT NULL, cycle INTEGER, kind TEXT NOT NULL, data TEXT NOT NULL);
        INSERT INTO meta VALUES ('run', '3');
        INSERT INTO events (run, t, kind, data) VALUES (3, 1.0, 'phase', '{}');
    """)
    conn.close()
    log = EventLog(state / "events.sqlite")
    log.record({"t": 2.0, "kind": "phase"})
    log.close()
    code, text = verify(state, capsys)
    assert code == 0 and "from row 2" in text


def test_rows_slipped_in_before_the_chain_are_named(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    """Attack: INSERT a forged row with an id at or below the chain's anchor (0, a
    negative id, or an id rotation already deleted). The check started after the
    anchor, so the log verified intact while the API served the forged row first."""
    forged = ("INSERT INTO events (id, run, wall, t, cycle, kind, data, chain) VALUES "
              "({id}, 1, 999.0, 0.5, 0, 'technician.action', "
              "'{{\"name\":\"alice\",\"action\":\"clear\"}}', NULL)")
    fresh = make_log(tmp_path / "fresh", rows=20)
    rotated = make_log(tmp_path / "rotated", rows=2600, max_rows=1000)
    anchor = int(LogReader(rotated / "events.sqlite").query(limit=1_000)[0]["seq"]) - 1
    for name, source, row_id in (("zero", fresh, 0), ("negative", fresh, -7),
                                 ("rotated away", rotated, anchor - 3),
                                 ("at the anchor", rotated, anchor)):
        target = tampered(source, tmp_path / name, forged.format(id=row_id))
        assert LogReader(target / "events.sqlite").query(kind="technician")  # served
        code, text = verify(target, capsys)
        assert code == 1, (name, text)
        assert f"row {row_id}" in text and "TAMPERED" in text, (name, text)
