"""The table's persistent event log: SQLite in WAL mode, written by one thread.

Every controller event (key presses, phases, faults, handoff commitments, technician
actions, diagnoses) becomes one row with its controller time, the hand (cycle) it
happened in, and the run (one per daemon start). The loop only puts events on a
queue; the durable-writer thread (durable.py) commits them in batches, so a slow SD
card never delays a sensor edge. Queries open their own connection: WAL lets readers run beside the
writer.

Durability: `journal_mode=WAL` with `synchronous=FULL`. In WAL mode NORMAL is already
safe against corruption, but a power cut may lose the last commits; FULL fsyncs the
WAL at each commit, so a fault or a handoff commitment that was logged stays logged.
Commits are batched (one every `flush_s`), so FULL costs at most a few fsyncs a
second — affordable even on an SD card.

Size is bounded: past `max_rows` the oldest rows are deleted after each batch, and
SQLite reuses their pages.

Tamper evidence: every row carries `chain`, the sha256 of the previous row's chain
and this row's fields, so a row changed, removed or reordered with sqlite3 shows
(`verify_chain`, `mjtable console verify-log`). Rotation keeps the chain of the last
deleted row as the anchor; the head (last row and its chain) is in `meta`, in every
export and in the API's `info`: whoever noted a head can tell a rewritten history.

Confidentiality: a handoff row carries only the public part of its record while the
hand is in play (firmware/hands/handoff.py); the file is created 0640 whatever the umask.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from firmware.hands.handoff import public_event
from firmware.i18n import _
from firmware.state import durable
from firmware.state.chain_words import (
    CHAIN_CHANGED,
    CHAIN_CUT,
    CHAIN_INTACT,
    CHAIN_NONE,
    CHAIN_REMOVED,
    CHAIN_UNDER,
    CHAIN_YOUNG,
)
from firmware.state.storage import Unreadable

if TYPE_CHECKING:
    from firmware.state.table import Listened


def _private(path: Path) -> None:
    """Create the log file 0640 whatever the umask (SQLite gives its -wal and -shm
    files the database file's mode)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
    try:
        os.fchmod(fd, 0o640)
    finally:
        os.close(fd)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id    INTEGER PRIMARY KEY,
    run   INTEGER NOT NULL,
    wall  REAL,
    t     REAL NOT NULL,
    cycle INTEGER,
    kind  TEXT NOT NULL,
    data  TEXT NOT NULL,
    chain TEXT
);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, id);
CREATE INDEX IF NOT EXISTS events_cycle ON events (run, cycle);
CREATE INDEX IF NOT EXISTS events_wall ON events (wall);
"""
DEFAULT_MAX_ROWS = 200_000
QUEUE_LIMIT = 20_000
QUERY_LIMIT_MAX = 10_000
GENESIS = "0" * 64


def row_chain(prev: str, id_: int, run: int, wall: float | None, t: float,
              cycle: int | None, kind: str, data: str) -> str:
    """The chain value of one row: sha256 over the previous chain and every field."""
    text = "\x1f".join([prev, str(id_), str(run), "" if wall is None else repr(float(wall)),
                        repr(float(t)), "" if cycle is None else str(cycle), kind, data])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _pair(text: str | None) -> tuple[int, str]:
    id_, _, chain = (text or f"0:{GENESIS}").partition(":")
    return int(id_), chain


def rotated_young(conn: sqlite3.Connection, meta: dict[str, str],
                  keep_s: float) -> str | None:
    """Why the last rotation is suspicious (it deleted rows younger than `keep_s`
    before the newest row), or None. A flood of rows pushes history out this way."""
    if "anchor_wall" not in meta:
        return None
    newest = conn.execute("SELECT max(wall) FROM events").fetchone()[0]
    if newest is None:
        return None
    age = float(newest) - float(meta["anchor_wall"])
    if age >= keep_s:
        return None
    anchor_id, _ = _pair(meta.get("chain_anchor"))
    return CHAIN_YOUNG.format(age=f"{age / 3600:.1f}", row=anchor_id,
                              keep=f"{keep_s / 3600:g}")


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
        uri = "file:" + urllib.parse.quote(str(self.path))
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=10.0)
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_CANTOPEN:
                conn.close()
                raise
            # A WAL database in a read-only directory (an SD card gone read-only) cannot
            # make its -shm file. Nobody can be writing there, so read the file as it
            # is, unless a crash left rows in its -wal: those could not be seen, and a
            # check that skips them would call a shortened log intact.
            conn.close()
            wal = self.path.with_name(self.path.name + "-wal")
            with contextlib.suppress(OSError):
                if wal.stat().st_size > 0:
                    raise Unreadable(_(
                        "its last writes are in {wal}, which cannot be read where "
                        "nothing can be written; copy the state directory somewhere "
                        "writable and run it there").format(wal=wal)) from None
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, timeout=10.0)
        return conn

    def query(self, *, kind: str | None = None, cycle: int | None = None,
              run: int | None = None, since: float | None = None,
              until: float | None = None, after_seq: int | None = None,
              limit: int = 200) -> list[dict[str, Any]]:
        """Rows matching every filter given, oldest first, the newest `limit` of them.

        `kind` matches the kind and its sub-kinds ("fault" also finds
        "fault.cleared"); `since`/`until` are wall-clock seconds; `cycle` is the hand
        (of the current run unless `run` says otherwise).
        """
        return list(self.iter_query(kind=kind, cycle=cycle, run=run, since=since,
                                    until=until, after_seq=after_seq, limit=limit))

    def iter_query(self, *, kind: str | None = None, cycle: int | None = None,
                   run: int | None = None, since: float | None = None,
                   until: float | None = None, after_seq: int | None = None,
                   limit: int = 200) -> Iterator[dict[str, Any]]:
        """`query` one row at a time (a reader may stop at a size it can send)."""
        return self._select(kind, cycle, run, since, until, after_seq,
                            max(1, min(int(limit), QUERY_LIMIT_MAX)))

    def chain_head(self) -> str:
        """"ID:SHA256" of the last row written (its chain value)."""
        with contextlib.closing(self._open()) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'chain_head'").fetchone()
        return row[0] if row else f"0:{GENESIS}"

    def young_rotation(self, keep_s: float) -> str | None:
        """Why the last rotation looks like a flood (see `rotated_young`), or None."""
        with contextlib.closing(self._open()) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            return rotated_young(conn, meta, keep_s)

    def verify_chain(self) -> tuple[bool, str]:
        """(intact, what was found): the first row changed, removed or reordered."""
        with contextlib.closing(self._open()) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if "chain_anchor" not in meta:
                return False, CHAIN_NONE
            anchor_id, prev = _pair(meta["chain_anchor"])
            # Nothing may sit at or below the anchor: rotation deleted those rows. Only
            # a log from before the chain (genesis anchor) keeps its old rows 1..anchor,
            # unchained; any other row there was slipped in under the check.
            legacy = prev == GENESIS
            foreign = conn.execute(
                "SELECT min(id) FROM events WHERE id <= ? AND NOT (? AND id >= 1 AND "
                "chain IS NULL)", (anchor_id, legacy)).fetchone()[0]
            if foreign is not None:
                return False, CHAIN_UNDER.format(row=foreign, anchor=anchor_id)
            expected = anchor_id + 1
            rows = conn.execute("SELECT id, run, wall, t, cycle, kind, data, chain FROM "
                                "events WHERE id > ? ORDER BY id", (anchor_id,))
            checked = 0
            for id_, run, wall, t, cycle, kind, data, chain in rows:
                if id_ != expected:
                    return False, CHAIN_REMOVED.format(row=expected, next=id_,
                                                       checked=checked)
                computed = row_chain(prev, id_, run, wall, t, cycle, kind, data)
                if chain != computed:
                    return False, CHAIN_CHANGED.format(row=id_, before=id_ - 1,
                                                       checked=checked)
                prev, expected, checked = computed, expected + 1, checked + 1
        head_id, head = _pair(meta.get("chain_head"))
        if head_id != expected - 1 or (checked and head != prev):
            return False, CHAIN_CUT.format(row=expected - 1, head=head_id)
        return True, CHAIN_INTACT.format(checked=checked, first=anchor_id + 1,
                                         head=f"{expected - 1}:{prev}")

    def each(self, kind: str) -> Iterator[dict[str, Any]]:
        """Every row of `kind` (and its sub-kinds), oldest first, however many."""
        return self._select(kind, None, None, None, None, None, None)

    def chain_at(self, id_: int) -> str | None:
        """The chain value of row `id_` (the anchor's when rotation deleted it), or
        None when the log has neither."""
        with contextlib.closing(self._open()) as conn:
            row = conn.execute("SELECT chain FROM events WHERE id = ?", (id_,)).fetchone()
            anchor = conn.execute("SELECT value FROM meta WHERE key = 'chain_anchor'"
                                  ).fetchone()
        if row is not None:
            return row[0]
        if anchor is not None and _pair(anchor[0])[0] == id_:
            return _pair(anchor[0])[1]
        return None

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
        sql = "SELECT id, run, wall, t, cycle, kind, data, chain FROM events"
        if where:
            sql += " WHERE " + " AND ".join(where)
        if limit is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT {int(limit)}) ORDER BY id"
        else:
            sql += " ORDER BY id"
        conn = self._open()
        try:
            for id_, run_, wall, t, cyc, kind_, data, chain in conn.execute(sql, args):
                # A fault's own "id" stays; the row's number is "seq".
                yield {**json.loads(data), "seq": id_, "run": run_, "wall": wall, "t": t,
                       "cycle": cyc, "kind": kind_, "chain": chain}
        finally:
            conn.close()


class EventLog(LogReader):
    """Append events from the loop (one writer thread commits them); read as LogReader."""

    def __init__(self, path: str | Path, *, max_rows: int = DEFAULT_MAX_ROWS,
                 flush_s: float = 0.2, wall: Callable[[], float] | None = None,
                 writer: durable.Durable | None = None) -> None:
        """`wall` stamps rows with a wall-clock time for people reading the log; the
        daemon passes `time.time`. It never steers the table. `writer` commits the
        rows (the process's one durable-writer thread unless a test gives another)."""
        self.path = Path(path)
        self.max_rows = max_rows
        self.flush_s = flush_s
        self._wall = wall
        self.dropped = 0
        self.written = 0
        # Called from the writer thread with the error when a batch cannot be committed
        # (the daemon raises E96 through its loop); `failure` is the last one, None
        # once a batch went through again.
        self.on_failure: Callable[[BaseException], None] | None = None
        self.failure: BaseException | None = None
        # Rows from the loop, waiting for the writer (appended by the loop only).
        self._rows: deque[tuple[Any, ...]] = deque()
        self._failed: list[tuple[Any, ...]] = []    # rows a failing disk refused
        self._conn: sqlite3.Connection | None = None    # the writer's own
        self._scheduled = False
        self.writer = writer or durable.shared()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _private(self.path)
        with contextlib.closing(self._connect()) as conn:
            columns = {r[1] for r in conn.execute("PRAGMA table_info(events)")}
            if columns and "chain" not in columns:
                # A log from before the chain: the chain starts after its last row.
                conn.execute("ALTER TABLE events ADD COLUMN chain TEXT")
            conn.executescript(SCHEMA)
            last = conn.execute("SELECT max(id) FROM events").fetchone()[0] or 0
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('chain_anchor', ?)",
                         (f"{last}:{GENESIS}",))
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('chain_head', ?)",
                         (f"{last}:{GENESIS}",))
            head = conn.execute("SELECT value FROM meta WHERE key = 'chain_head'").fetchone()
            row = conn.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
            try:
                self._last_id, self._head = last, _pair(head[0])[1]
                self.run = int(row[0]) + 1 if row else 1
            except (ValueError, TypeError, AttributeError) as exc:
                # Damaged bookkeeping is a damaged file (E96's line), not a crash.
                raise sqlite3.DatabaseError(str(exc)) from None
            self.head = f"{last}:{self._head}"
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (str(self.run),))
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                os.chmod(side, 0o640)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    # -- writing (from the loop) -------------------------------------------------

    def attach(self, ctl: Listened) -> None:
        """Log every event of `ctl`, stamped with the hand it happened in."""
        ctl.subscribers.append(lambda event: self.record(event, ctl.cycle.number))

    def record(self, event: dict[str, Any], cycle: int | None = None) -> None:
        """Queue one event; never blocks (a full queue drops and counts)."""
        cycle = event.get("cycle", cycle) if isinstance(event.get("cycle"), int) else cycle
        event = public_event(event)     # no tiles of a hand in play in the file
        data = {k: v for k, v in event.items() if k not in ("t", "kind")}
        wall = self._wall() if self._wall is not None else None
        row = (self.run, wall, float(event.get("t", 0.0)), cycle, str(event["kind"]),
               json.dumps(data, default=str, separators=(",", ":")))
        if len(self._rows) >= QUEUE_LIMIT:
            self.dropped += 1       # a stalled disk: dropped, and said in the log
            return
        self._rows.append(row)
        if not self._scheduled:
            # The batch's first row: the writer commits it and what follows in flush_s.
            self._scheduled = True
            self.writer.submit(self, self._drain, self.flush_s)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything recorded so far is committed (tests, shutdown)."""
        return self.writer.submit(self, self._drain).wait(timeout)

    def close(self) -> None:
        self.flush()
        self.writer.submit(self, self._disconnect).wait(10.0)

    def _disconnect(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):    # a failed disk may refuse it too
                self._conn.close()
        self._conn = None

    def _drain(self) -> None:
        """In the writer: commit the rows recorded so far as one batch."""
        self._scheduled = False     # before taking the rows: a row after it schedules
        rows, self._failed = self._failed, []
        while self._rows:
            rows.append(self._rows.popleft())
        if not rows:
            return
        try:
            if self._conn is None:
                self._conn = self._connect()
                rows = self._unwritten(self._conn, rows)
            if rows:
                self._commit(self._conn, rows)
        except Exception as exc:
            # Never a silent end of the log: the owner hears of it (E96 in the daemon)
            # and the rows wait for the next batch, which tries again on a fresh
            # connection.
            self._disconnect()
            self.dropped += max(0, len(rows) - QUEUE_LIMIT)
            self._failed = rows[-QUEUE_LIMIT:]
            self.failure = exc
            if self.on_failure is not None:
                with contextlib.suppress(Exception):
                    self.on_failure(exc)
        else:
            self.failure = None

    def _unwritten(self, conn: sqlite3.Connection,
                   rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """`rows` less those a commit that reported an error did write after all (a
        failed fsync after the WAL frames went out: the next connection's recovery
        finds them). Only when the file's head is exactly the chain over our own
        rows; anything else is another writer's, and its error stands."""
        row = conn.execute("SELECT value FROM meta WHERE key = 'chain_head'").fetchone()
        if row is None:
            return rows
        head_id, head = _pair(row[0])
        done = head_id - self._last_id
        if done <= 0 or done > len(rows):
            return rows
        last, chain = self._last_id, self._head
        for run, wall, t, cycle, kind, data in rows[:done]:
            last += 1
            chain = row_chain(chain, last, run, wall, t, cycle, kind, data)
        if chain != head:
            return rows
        self._last_id, self._head = last, chain
        self.head = f"{last}:{chain}"
        self.written += done
        return rows[done:]

    def _commit(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        if self.dropped:
            # Say so in the log itself: a gap must never look like silence.
            dropped, self.dropped = self.dropped, 0
            rows.append((self.run, None, rows[-1][2], None, "log.dropped",
                         json.dumps({"events": dropped})))
        chained = []
        last, head = self._last_id, self._head
        for run, wall, t, cycle, kind, data in rows:
            last += 1
            head = row_chain(head, last, run, wall, t, cycle, kind, data)
            chained.append((last, run, wall, t, cycle, kind, data, head))
        conn.execute("BEGIN")
        try:
            conn.executemany("INSERT INTO events (id, run, wall, t, cycle, kind, data, chain) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", chained)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('chain_head', ?)",
                         (f"{last}:{head}",))
            cut = last - self.max_rows
            anchor = conn.execute("SELECT id, chain, wall FROM events WHERE id <= ? "
                                  "ORDER BY id DESC LIMIT 1", (cut,)).fetchone()
            if anchor is not None and anchor[1] is not None:
                # The chain goes on from the last row deleted.
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('chain_anchor', ?)",
                             (f"{anchor[0]}:{anchor[1]}",))
                if anchor[2] is not None:
                    # How young the rows rotation deletes are (verify-log judges it).
                    conn.execute("INSERT OR REPLACE INTO meta VALUES ('anchor_wall', ?)",
                                 (repr(float(anchor[2])),))
            conn.execute("DELETE FROM events WHERE id <= ?", (cut,))
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):   # a failed disk may refuse it too
                conn.execute("ROLLBACK")
            raise
        self._last_id, self._head = last, head
        # One assignment, read by the loop for the API's status without a query.
        self.head = f"{last}:{head}"
        self.written += len(rows)
