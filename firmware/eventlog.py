"""The table's persistent event log: SQLite in WAL mode, written by one thread.

Every controller event (key presses, phases, faults, handoff commitments, technician
actions, diagnoses) becomes one row with its controller time, the hand (cycle) it
happened in, and the run (one per daemon start). The loop only puts events on a
queue; a writer thread commits them in batches, so a slow SD card never delays a
sensor edge. Queries open their own connection: WAL lets readers run beside the
writer.

Durability: `journal_mode=WAL` with `synchronous=FULL`. In WAL mode NORMAL is already
safe against corruption, but a power cut may lose the last commits; FULL fsyncs the
WAL at each commit, so a fault or a handoff commitment that was logged stays logged.
Commits are batched (one every `flush_s`), so FULL costs at most a few fsyncs a
second — affordable even on an SD card.

Size is bounded: past `max_rows` the oldest rows are deleted after each batch, and
SQLite reuses their pages.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.controller import Controller

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id    INTEGER PRIMARY KEY,
    run   INTEGER NOT NULL,
    wall  REAL,
    t     REAL NOT NULL,
    cycle INTEGER,
    kind  TEXT NOT NULL,
    data  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, id);
CREATE INDEX IF NOT EXISTS events_cycle ON events (run, cycle);
CREATE INDEX IF NOT EXISTS events_wall ON events (wall);
"""
DEFAULT_MAX_ROWS = 200_000
QUEUE_LIMIT = 20_000
QUERY_LIMIT_MAX = 10_000


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


_CLOSE = object()


class LogReader:
    """Read-only access to an event log file (the daemon may be writing it)."""

    def __init__(self, path: str | Path, run: int | None = None) -> None:
        self.path = Path(path)
        if run is None:
            if not self.path.exists():
                raise FileNotFoundError(f"no event log at {self.path}")
            with contextlib.closing(self._open()) as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
            run = int(row[0]) if row else 0
        self.run = run

    def _open(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10.0)

    def query(self, *, kind: str | None = None, cycle: int | None = None,
              run: int | None = None, since: float | None = None,
              until: float | None = None, after_seq: int | None = None,
              limit: int = 200) -> list[dict[str, Any]]:
        """Rows matching every filter given, oldest first, the newest `limit` of them.

        `kind` matches the kind and its sub-kinds ("fault" also finds
        "fault.cleared"); `since`/`until` are wall-clock seconds; `cycle` is the hand
        (of the current run unless `run` says otherwise).
        """
        return list(self._select(kind, cycle, run, since, until, after_seq,
                                 max(1, min(int(limit), QUERY_LIMIT_MAX))))

    def export(self, out: IO[str], **filters: Any) -> int:
        """Write matching rows as JSON lines; returns how many."""
        count = 0
        for row in self._select(filters.get("kind"), filters.get("cycle"),
                                filters.get("run"), filters.get("since"),
                                filters.get("until"), filters.get("after_seq"), None):
            out.write(json.dumps(row) + "\n")
            count += 1
        return count

    def _select(self, kind: str | None, cycle: int | None, run: int | None,
                since: float | None, until: float | None, after_seq: int | None,
                limit: int | None) -> Iterator[dict[str, Any]]:
        where: list[str] = []
        args: list[Any] = []
        if kind:
            escaped = kind.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where.append("(kind = ? OR kind LIKE ? ESCAPE '\\')")
            args += [kind, escaped + ".%"]
        if cycle is not None:
            where.append("cycle = ? AND run = ?")
            args += [int(cycle), int(run) if run is not None else self.run]
        elif run is not None:
            where.append("run = ?")
            args.append(int(run))
        if since is not None:
            where.append("wall >= ?")
            args.append(float(since))
        if until is not None:
            where.append("wall <= ?")
            args.append(float(until))
        if after_seq is not None:
            where.append("id > ?")
            args.append(int(after_seq))
        sql = "SELECT id, run, wall, t, cycle, kind, data FROM events"
        if where:
            sql += " WHERE " + " AND ".join(where)
        if limit is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT {int(limit)}) ORDER BY id"
        else:
            sql += " ORDER BY id"
        conn = self._open()
        try:
            for id_, run_, wall, t, cyc, kind_, data in conn.execute(sql, args):
                # A fault's own "id" stays; the row's number is "seq".
                yield {**json.loads(data), "seq": id_, "run": run_, "wall": wall, "t": t,
                       "cycle": cyc, "kind": kind_}
        finally:
            conn.close()


class EventLog(LogReader):
    """Append events from the loop (one writer thread commits them); read as LogReader."""

    def __init__(self, path: str | Path, *, max_rows: int = DEFAULT_MAX_ROWS,
                 flush_s: float = 0.2, wall: Callable[[], float] | None = None) -> None:
        """`wall` stamps rows with a wall-clock time for people reading the log; the
        daemon passes `time.time`. It never steers the table."""
        self.path = Path(path)
        self.max_rows = max_rows
        self.flush_s = flush_s
        self._wall = wall
        self.dropped = 0
        self.written = 0
        self._queue: queue.Queue[Any] = queue.Queue(QUEUE_LIMIT)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.executescript(SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
            self.run = int(row[0]) + 1 if row else 1
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (str(self.run),))
        self._thread = threading.Thread(target=self._writer, name="eventlog", daemon=True)
        self._thread.start()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    # -- writing (from the loop) -------------------------------------------------

    def attach(self, ctl: Controller) -> None:
        """Log every event of `ctl`, stamped with the hand it happened in."""
        ctl.subscribers.append(lambda event: self.record(event, ctl.cycle.number))

    def record(self, event: dict[str, Any], cycle: int | None = None) -> None:
        """Queue one event; never blocks (a full queue drops and counts)."""
        cycle = event.get("cycle", cycle) if isinstance(event.get("cycle"), int) else cycle
        data = {k: v for k, v in event.items() if k not in ("t", "kind")}
        wall = self._wall() if self._wall is not None else None
        row = (self.run, wall, float(event.get("t", 0.0)), cycle, str(event["kind"]),
               json.dumps(data, default=str, separators=(",", ":")))
        try:
            self._queue.put_nowait(row)
        except queue.Full:
            self.dropped += 1

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued so far is committed (tests, shutdown)."""
        marker = _Flush()
        self._queue.put(marker)
        return marker.done.wait(timeout)

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(_CLOSE)
            self._thread.join(timeout=10.0)

    def _writer(self) -> None:
        conn = self._connect()
        try:
            while True:
                item = self._queue.get()
                rows: list[tuple[Any, ...]] = []
                markers: list[_Flush] = []
                closing = False
                deadline = time.monotonic() + self.flush_s
                while True:
                    if item is _CLOSE:
                        closing = True
                        break
                    if isinstance(item, _Flush):
                        markers.append(item)
                        break
                    rows.append(item)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    try:
                        item = self._queue.get(timeout=remaining)
                    except queue.Empty:
                        break
                if rows:
                    self._commit(conn, rows)
                for marker in markers:
                    marker.done.set()
                if closing:
                    return
        finally:
            conn.close()

    def _commit(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        if self.dropped:
            # Say so in the log itself: a gap must never look like silence.
            dropped, self.dropped = self.dropped, 0
            rows.append((self.run, None, rows[-1][2], None, "log.dropped",
                         json.dumps({"events": dropped})))
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO events (run, wall, t, cycle, kind, data) "
                         "VALUES (?, ?, ?, ?, ?, ?)", rows)
        last = conn.execute("SELECT max(id) FROM events").fetchone()[0]
        conn.execute("DELETE FROM events WHERE id <= ?", (last - self.max_rows,))
        conn.execute("COMMIT")
        self.written += len(rows)
