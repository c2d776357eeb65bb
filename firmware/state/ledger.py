"""The usage ledger: every hand the table played, and its lifetime totals, for billing.

One row per hand, numbered by a sequence that never repeats on this table (it goes on
across restarts), with the boot it started in, its start and end (wall time, for
people: a table without a real-time clock may boot in 1970), its duration counted on
the table's own clock, the booking it was played under and the variant. The venue
reads the records after the last sequence it holds and acknowledges the highest it
stored; nothing is ever deleted, so a venue that lost its copy can read them again.
A record is the same on every read: (table, boot, sequence) identifies it.

A hand starts when its walls rise ("raising") and ends when players open the lid to
push its tiles in (phase "opening"). A hand cut by a stop or a crash stays open on
disk; after the restart it goes on if the table came back with that hand in play,
and is otherwise closed as "interrupted" with the time counted until the last
checkpoint.

Durability, as the journal's (firmware/state/journal_flush.py): the loop commits to SQLite
in WAL mode with synchronous=NORMAL, which a crash of the process at any instant
cannot undo (the WAL is written before the commit returns), and never waits for the
disk; the durable-writer thread (durable.py) checkpoints the WAL with synchronous=FULL,
which fsyncs it and the database, so a cut of the machine's power loses at most the
commits of the last instants.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware.machines.cycle import CycleState
from firmware.state import durable
from mjtable_core.clock import Clock, Timer

if TYPE_CHECKING:
    from firmware.state.table import Listened

FILE_NAME = "ledger.sqlite"
FORMAT = "mjtable.ledger/1"
CHECKPOINT_S = 30.0         # powered and open-hand seconds reach the disk this often
MAX_RECORDS = 500           # records one read returns at most

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS hands (
    seq INTEGER PRIMARY KEY,       -- never reused on this table
    boot INTEGER NOT NULL,         -- the boot the hand started in
    cycle INTEGER NOT NULL,        -- the controller's hand number
    start REAL,                    -- wall time, for people
    end REAL,
    duration_s REAL NOT NULL DEFAULT 0,   -- on the table's clock
    booking_id TEXT,
    variant TEXT,
    ended TEXT                     -- NULL while open; "played" or "interrupted"
);
"""


class Ledger:
    """The ledger of one table, fed by the controller's events inside its loop."""

    def __init__(self, path: Path, table: str, clock: Clock,
                 wall: Callable[[], float] | None = None, variant: str = "",
                 checkpoint_s: float = CHECKPOINT_S) -> None:
        self.path = path
        self.table = table
        self.clock = clock
        self.wall = wall
        self.variant = variant
        self.checkpoint_s = checkpoint_s
        # The booking the next hand is played under (the gate sets it).
        self.booking: Callable[[], str | None] = lambda: None
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA wal_autocheckpoint=0")    # the flusher checkpoints
        self.db.executescript(SCHEMA)
        with self._tx():
            self.boot = int(self._meta("boot", 0)) + 1
            self._set_meta("boot", self.boot)
            self._set_meta("format", FORMAT)
            self._set_meta("table", table)
        self._mark = clock.now()         # powered seconds counted up to here
        # The highest record read (by the agent, to send): an ack past it is cut here,
        # so a record nobody has read is never counted as held by the venue.
        self._read = int(self._meta("acked", 0))
        self._open: dict[str, Any] | None = self._open_row()
        self._open_mark: float | None = None   # when this boot began counting the open hand
        self._timer: Timer | None = None
        # Small states saved with every checkpoint (the booking gate's seconds left).
        self.kept: dict[str, Callable[[], Any]] = {}
        self._flusher = _Flusher(path)
        self._flusher.kick()

    # -- the controller's events ------------------------------------------------------

    def attach(self, ctl: Listened) -> None:
        ctl.subscribers.append(self.on_event)
        self._schedule()

    def adopt(self, cycle: int, in_play: bool) -> None:
        """After start-up: a hand left open by the last boot goes on if the table came
        back with it in play, else it is closed as interrupted."""
        if self._open is None or self._open["boot"] == self.boot:
            return
        if in_play and self._open["cycle"] == cycle:
            self._open_mark = self.clock.now()
        else:
            self._close("interrupted", counted=False)

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "raising":
            self.hand_started(int(event.get("cycle") or 0))
        elif kind == "phase" and event.get("state") == CycleState.OPENING:
            self.hand_ended()

    def hand_started(self, cycle: int) -> None:
        if self._open is not None:
            self._close("interrupted", counted=self._open_mark is not None)
        start = self._wall()
        with self._tx():
            seq = self.db.execute(
                "INSERT INTO hands (boot, cycle, start, booking_id, variant) "
                "VALUES (?, ?, ?, ?, ?)",
                (self.boot, cycle, start, self.booking(), self.variant)).lastrowid
        self._open = self._row(seq)
        self._open_mark = self.clock.now()
        self._flusher.kick()

    def hand_ended(self) -> None:
        if self._open is None:
            return
        if self._open_mark is None:      # from an earlier boot and never adopted
            self._close("interrupted", counted=False)
        else:
            self._close("played", counted=True)

    def _close(self, how: str, counted: bool) -> None:
        assert self._open is not None
        seq = self._open["seq"]
        # An interrupted hand keeps what the last checkpoint counted; its end is unknown.
        with self._tx():
            if counted:
                self._count_open()
            self.db.execute("UPDATE hands SET end = ?, ended = ? WHERE seq = ?",
                            (self._wall() if how == "played" else None, how, seq))
        self._open = None
        self._open_mark = None
        self._flusher.kick()

    def _count_open(self) -> None:
        if self._open is None or self._open_mark is None:
            return
        now = self.clock.now()
        self.db.execute("UPDATE hands SET duration_s = duration_s + ? WHERE seq = ?",
                        (max(0.0, now - self._open_mark), self._open["seq"]))
        self._open_mark = now

    # -- checkpoints ------------------------------------------------------------------

    def _schedule(self) -> None:
        self._timer = self.clock.call_later(self.checkpoint_s, self._checkpoint)

    def _checkpoint(self) -> None:
        self.checkpoint()
        self._schedule()

    def checkpoint(self) -> None:
        """Count powered seconds and the open hand's seconds onto the disk."""
        now = self.clock.now()
        with self._tx():
            powered = float(self._meta("powered_s", 0.0)) + max(0.0, now - self._mark)
            self._set_meta("powered_s", powered)
            self._count_open()
            for key, state in self.kept.items():
                self._set_meta(f"kept.{key}", json.dumps(state()))
        self._mark = now
        self._flusher.kick()

    def keep(self, key: str, value: Any) -> None:
        """Save a small state now (it is saved again at every checkpoint)."""
        with self._tx():
            self._set_meta(f"kept.{key}", json.dumps(value))
        self._flusher.kick()

    def kept_value(self, key: str) -> Any:
        """A state kept by an earlier boot, or None."""
        text = self._meta(f"kept.{key}", None)
        try:
            return None if text is None else json.loads(text)
        except ValueError:
            return None

    def close(self) -> None:
        """A clean stop: count up to now, then wait for the disk."""
        if self._timer is not None:
            self._timer.cancel()
        with contextlib.suppress(sqlite3.Error):
            self.checkpoint()
        self._flusher.close()
        self.db.close()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every commit so far is on the disk (tests, clean stops)."""
        return self._flusher.flush(timeout)

    # -- reading ----------------------------------------------------------------------

    def records(self, after: int = 0, limit: int = MAX_RECORDS) -> list[dict[str, Any]]:
        """Finished hands with a sequence above `after`, oldest first."""
        rows = self.db.execute(
            "SELECT * FROM hands WHERE seq > ? AND ended IS NOT NULL ORDER BY seq LIMIT ?",
            (after, max(1, min(limit, MAX_RECORDS)))).fetchall()
        if rows:
            self._read = max(self._read, rows[-1][0])
        return [self._record(row) for row in rows]

    def acknowledge(self, seq: int) -> int:
        """The venue holds every record up to `seq`: never lowers, never past the last
        record read (an ack far ahead cannot skip a hand not sent yet). Returns the
        acknowledged sequence now."""
        with self._tx():
            acked = max(int(self._meta("acked", 0)), min(seq, self._read))
            self._set_meta("acked", acked)
        self._flusher.kick()
        return acked

    def totals(self) -> dict[str, Any]:
        hands, play = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(duration_s), 0) FROM hands "
            "WHERE ended IS NOT NULL").fetchone()
        last = self.db.execute("SELECT MAX(seq) FROM hands WHERE ended IS NOT NULL"
                               ).fetchone()[0] or 0
        powered = float(self._meta("powered_s", 0.0)) + max(0.0, self.clock.now() - self._mark)
        return {"table": self.table, "boot": self.boot, "hands": hands,
                "play_s": round(play, 3), "powered_s": round(powered, 3),
                "last_seq": last, "acked": int(self._meta("acked", 0)),
                "in_hand": self._open is not None and self._open_mark is not None}

    # -- plumbing ---------------------------------------------------------------------

    def _wall(self) -> float | None:
        return round(self.wall(), 3) if self.wall is not None else None

    def _record(self, row: tuple[Any, ...]) -> dict[str, Any]:
        seq, boot, cycle, start, end, duration, booking, variant, ended = row
        return {"table": self.table, "boot": boot, "seq": seq, "cycle": cycle,
                "start": start, "end": end, "duration_s": round(duration, 3),
                "booking_id": booking, "variant": variant, "ended": ended}

    def _row(self, seq: int) -> dict[str, Any]:
        row = self.db.execute("SELECT * FROM hands WHERE seq = ?", (seq,)).fetchone()
        return self._record(row)

    def _open_row(self) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM hands WHERE ended IS NULL "
                              "ORDER BY seq DESC LIMIT 1").fetchone()
        return self._record(row) if row else None

    def _meta(self, key: str, default: Any) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    def _set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    @contextlib.contextmanager
    def _tx(self) -> Any:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")


class _Flusher:
    """Checkpoints the WAL with synchronous=FULL in the durable-writer thread
    (durable.py): the loop never waits. Its connection lives in that thread."""

    def __init__(self, path: Path, writer: durable.Durable | None = None) -> None:
        self.path = path
        self._writer = writer or durable.shared()
        self._db: sqlite3.Connection | None = None
        self._ticket: durable.Ticket | None = None
        self.error: sqlite3.Error | None = None

    def kick(self) -> None:
        self._ticket = self._writer.submit(self, self._checkpoint)

    def flush(self, timeout: float | None = None) -> bool:
        ticket = self._ticket
        return ticket is None or ticket.wait(timeout)

    def close(self, timeout: float = 10.0) -> None:
        self.flush(timeout)
        self._writer.submit(self, self._close).wait(timeout)

    def _checkpoint(self) -> None:
        if self._db is None:
            self._db = sqlite3.connect(self.path, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA synchronous=FULL")
        try:
            # Syncs the WAL, copies it into the database, syncs that.
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:     # seen by the next flush's caller
            self.error = exc

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
