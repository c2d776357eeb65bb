"""The back office's tables: staff, sessions, integrators' keys, incidents, its log.

They live in the venue's own SQLite file, beside the hand records (venue/desk/tables/store.py),
which is kept mode 0600: it holds password hashes. Every refusal the desk makes
(a wrong password, a locked name, an expired session, a missing CSRF token, a forged
API key) is a row of `log`, so the owner can read who tried what, from where.

Refusals are windowed like the daemon's client rows (mjtable_core/clientrows.py): a
few rows per cause and address a minute, the rest counted in one `KIND.repeated` row,
and at most REFUSALS_PER_WINDOW over every address; past that only counted, in one
`desk.rows.suppressed` row. A client flooding made-up cookies no longer turns the log
(logins, bookings, incidents) over, nor the journal.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import Any

from mjtable_core.clientrows import ClientRows

SCHEMA = """
CREATE TABLE IF NOT EXISTS staff (
    name TEXT PRIMARY KEY, hash TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS lockout (
    name TEXT PRIMARY KEY, failures INTEGER NOT NULL, locked_until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY, name TEXT NOT NULL, csrf TEXT NOT NULL,
    created REAL NOT NULL, used REAL NOT NULL);
CREATE TABLE IF NOT EXISTS integrators (
    key_id TEXT PRIMARY KEY, name TEXT NOT NULL, secret_hash TEXT NOT NULL,
    created REAL NOT NULL, revoked REAL);
CREATE TABLE IF NOT EXISTS incidents (
    id INTEGER PRIMARY KEY, table_id TEXT NOT NULL, fault_id TEXT NOT NULL,
    code TEXT, summary TEXT, opened REAL NOT NULL, paged REAL, escalated REAL,
    cleared REAL, acked REAL, acked_by TEXT);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY, wall REAL NOT NULL, kind TEXT NOT NULL, who TEXT,
    remote TEXT, detail TEXT);
"""
LOG_MAX_ROWS = 100_000      # the oldest rows go first
REFUSALS_PER_KEY = 5        # rows per cause and address a window; the rest are counted
REFUSALS_PER_WINDOW = 120   # over every address: at most 172,800 a day, and a flood of
REFUSAL_WINDOW_S = 60.0     # them leaves the log's other rows for days


class _Wall:
    """The office's wall clock as the client-row gate reads it."""

    def __init__(self, wall: Callable[[], float]) -> None:
        self.now = wall


def own_connection(db: sqlite3.Connection) -> sqlite3.Connection:
    """The office's connection to the venue's file: its own, with synchronous=NORMAL.

    The hand records want every commit on the disk (FULL); a log row does not, and an
    fsync per refusal (9 ms on a busy box) would let a flood of forged keys stall the
    event loop. In WAL mode NORMAL loses at most the last rows in a power cut, never
    the file. A database in memory (tests, the demo) is shared as it is."""
    row = db.execute("PRAGMA database_list").fetchone()
    path = row[2] if row else ""
    if not path:
        return db
    own = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
    own.execute("PRAGMA synchronous=NORMAL")
    return own


class Office:
    def __init__(self, db: sqlite3.Connection | None = None,
                 wall: Callable[[], float] = time.time, echo: bool = True) -> None:
        """`db`: the venue's connection (autocommit); None: a file in memory (tests)."""
        self.wall = wall
        self.echo = echo
        self.db = db if db is not None else sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False)
        self.db.executescript(SCHEMA)
        self._logged = 0
        self._refusals = ClientRows(_Wall(wall), self._refusal_row,  # type: ignore[arg-type]
                                    window_s=REFUSAL_WINDOW_S, total=REFUSALS_PER_WINDOW,
                                    suppressed="desk.rows.suppressed")

    def one(self, query: str, args: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        cursor = self.db.execute(query, args)
        row = cursor.fetchone()
        return None if row is None else dict(zip([c[0] for c in cursor.description], row,
                                                 strict=True))

    def all(self, query: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        cursor = self.db.execute(query, args)
        names = [c[0] for c in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def log(self, kind: str, who: str | None = None, remote: str | None = None,
            **detail: Any) -> None:
        """One row of the desk's log (and a line on stderr for the journal)."""
        text = json.dumps(detail, ensure_ascii=False, default=str) if detail else None
        self.db.execute("INSERT INTO log (wall, kind, who, remote, detail) "
                        "VALUES (?, ?, ?, ?, ?)", (self.wall(), kind, who, remote, text))
        self._logged += 1
        if self._logged % 1000 == 0:
            self.db.execute("DELETE FROM log WHERE id <= (SELECT MAX(id) FROM log) - ?",
                            (LOG_MAX_ROWS,))
        if self.echo:
            print(f"mjtable venue: {kind} who={who!r} from={remote} {text or ''}",
                  file=sys.stderr, flush=True)

    def setting(self, key: str) -> str | None:
        row = self.one("SELECT value FROM settings WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    def set_setting(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                        (key, value))

    def refused(self, kind: str, who: str | None = None, remote: str | None = None,
                **detail: Any) -> bool:
        """A refusal's row, windowed per cause and address; True if it was written."""
        return self._refusals.row(kind, remote, per_key=REFUSALS_PER_KEY, who=who,
                                  remote=remote, **detail)

    def flush_refusals(self) -> None:
        """Write the counts of the refusal windows that have ended."""
        self._refusals.flush()

    def _refusal_row(self, kind: str, who: str | None = None, remote: str | None = None,
                     **detail: Any) -> None:
        self.log(kind, who=who, remote=remote, **detail)

    def rows(self, kind: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """The newest log rows (of one kind), oldest first."""
        query = "SELECT * FROM log" + (" WHERE kind = ?" if kind else "") + \
            " ORDER BY id DESC LIMIT ?"
        found = self.all(query, (kind, limit) if kind else (limit,))
        return [{**r, "detail": json.loads(r["detail"]) if r["detail"] else {}}
                for r in reversed(found)]
