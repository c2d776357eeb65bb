"""The venue's copy of every table's hand records: each (table, boot, seq) once.

The tables re-send whatever the venue has not acknowledged, so a record may arrive
twice; the key keeps it once. What is acknowledged is the highest sequence held with
no gap above what the table already counted as acknowledged: a record lost on the way
is asked for again, never skipped. Usage per day and the billing CSV read from here.

A record whose key is held already with other fields (a table restored from an old
card, or anyone who published as the table) is no repeat: it is kept aside in
`conflicts`, told to `on_conflict`, and shown on the usage page beside the one held,
never dropped in silence; billing goes on from the first until staff look.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FILE_NAME = "venue.sqlite"
CONFLICTS_PER_HAND = 4      # records kept aside for one hand; the rest only counted
FIELDS = ("table", "boot", "seq", "cycle", "start", "end", "duration_s", "booking_id",
          "variant", "ended")


class Store:
    def __init__(self, path: Path | str = ":memory:") -> None:
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        if str(path) != ":memory:":
            os.chmod(path, 0o600)       # staff password hashes live here too (desk/office.py)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute(
            'CREATE TABLE IF NOT EXISTS hands ("table" TEXT, boot INTEGER, seq INTEGER, '
            'cycle INTEGER, start REAL, "end" REAL, duration_s REAL, booking_id TEXT, '
            'variant TEXT, ended TEXT, day TEXT, received REAL, '
            'PRIMARY KEY ("table", boot, seq))')
        self.db.execute('CREATE INDEX IF NOT EXISTS hands_day ON hands (day, "table")')
        self.db.execute('CREATE TABLE IF NOT EXISTS acked ("table" TEXT PRIMARY KEY, '
                        'seq INTEGER)')
        self.db.execute('CREATE TABLE IF NOT EXISTS conflicts ("table" TEXT, boot INTEGER, '
                        'seq INTEGER, record TEXT, day TEXT, received REAL, '
                        'UNIQUE ("table", boot, seq, record))')
        # Past CONFLICTS_PER_HAND records kept aside for one hand, the rest are counted.
        self.db.execute('CREATE TABLE IF NOT EXISTS conflicts_more ("table" TEXT, '
                        'boot INTEGER, seq INTEGER, count INTEGER, '
                        'PRIMARY KEY ("table", boot, seq))')
        # Told (table, the record held, the one kept aside) for each new conflict.
        self.on_conflict: list[Callable[[str, dict[str, Any], dict[str, Any]], None]] = []

    def add(self, table: str, record: dict[str, Any], now: float | None = None) -> bool:
        """Keep `record` of `table`; False when it was held already or is malformed."""
        try:
            boot, seq = int(record["boot"]), int(record["seq"])
            start = float(record["start"])
            if record.get("table") not in (None, table):
                return False    # a table speaks only for itself (the broker's ACL too)
            values = (table, boot, seq, _int(record.get("cycle")), start,
                      _float(record.get("end")), _float(record.get("duration_s")),
                      _text(record.get("booking_id")), _text(record.get("variant")),
                      _text(record.get("ended")), day_of(start),
                      time.time() if now is None else now)
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO hands VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", values)
        except (KeyError, TypeError, ValueError, OverflowError, OSError):
            # Malformed, or beyond what SQLite or the calendar holds (boot 10**30, a
            # start in the year 10**292): refused, as any malformed record is.
            return False
        if cursor.rowcount != 1:
            self._compare(values)
        return cursor.rowcount == 1

    def _compare(self, values: tuple[Any, ...]) -> None:
        """A key held already: the same record sent again, or a conflict kept aside."""
        table, boot, seq = values[:3]
        row = self.db.execute(
            'SELECT * FROM hands WHERE "table"=? AND boot=? AND seq=?', (table, boot, seq)
        ).fetchone()
        if row is None or tuple(row[:10]) == values[:10]:
            return
        held = dict(zip(FIELDS, row[:10], strict=True))
        aside = dict(zip(FIELDS, values[:10], strict=True))
        text = json.dumps(aside, sort_keys=True)
        (kept,) = self.db.execute(
            'SELECT COUNT(*) FROM conflicts WHERE "table"=? AND boot=? AND seq=?',
            (table, boot, seq)).fetchone()
        if kept >= CONFLICTS_PER_HAND:
            # A table varying one field of a hand wrote a row and a journal line per
            # variant (10,000 sent, 10,000 of each): the rest are a count beside them.
            if self.db.execute('SELECT 1 FROM conflicts WHERE "table"=? AND boot=? AND '
                               'seq=? AND record=?', (table, boot, seq, text)).fetchone():
                return
            self.db.execute(
                'INSERT INTO conflicts_more VALUES (?,?,?,1) ON CONFLICT ("table", boot, '
                'seq) DO UPDATE SET count = count + 1', (table, boot, seq))
            return
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO conflicts VALUES (?,?,?,?,?,?)",
            (table, boot, seq, text, values[10], values[11]))
        if cursor.rowcount == 1:
            for told in self.on_conflict:
                told(table, held, aside)

    def conflicts(self, first: str, last: str) -> list[dict[str, Any]]:
        """The records kept aside between two days, each beside the one held."""
        rows = self.db.execute(
            'SELECT c."table", c.boot, c.seq, c.record, c.received, h.* FROM conflicts c '
            'JOIN hands h ON h."table"=c."table" AND h.boot=c.boot AND h.seq=c.seq '
            'WHERE c.day BETWEEN ? AND ? OR h.day BETWEEN ? AND ? ORDER BY c.received',
            (first, last, first, last)).fetchall()
        return [{"table": r[0], "boot": r[1], "seq": r[2], "aside": json.loads(r[3]),
                 "received": r[4], "held": dict(zip(FIELDS, r[5:15], strict=True)),
                 "more": self._more(r[0], r[1], r[2])}
                for r in rows]

    def _more(self, table: str, boot: int, seq: int) -> int:
        """Records conflicting with a hand past the CONFLICTS_PER_HAND kept aside."""
        row = self.db.execute('SELECT count FROM conflicts_more WHERE "table"=? AND boot=? '
                              'AND seq=?', (table, boot, seq)).fetchone()
        return row[0] if row else 0

    def ackable(self, table: str, acked: int) -> int:
        """The highest seq to acknowledge: held without a gap above `acked` (what the
        table says the venue holds already) and above what we acknowledged before."""
        row = self.db.execute('SELECT seq FROM acked WHERE "table"=?', (table,)).fetchone()
        top = max(acked, row[0] if row else 0)
        for (seq,) in self.db.execute(
                'SELECT seq FROM hands WHERE "table"=? AND seq>? ORDER BY seq', (table, top)):
            if seq != top + 1:
                break
            top = seq
        return top

    def acknowledged(self, table: str, seq: int) -> None:
        self.db.execute('INSERT INTO acked VALUES (?,?) ON CONFLICT("table") DO UPDATE '
                        'SET seq=max(seq, excluded.seq)', (table, seq))

    def today(self, day: str) -> dict[str, tuple[int, float]]:
        """hands and play seconds per table on `day`."""
        return {table: (hands, play or 0.0) for table, hands, play in self.db.execute(
            'SELECT "table", count(*), sum(duration_s) FROM hands WHERE day=? '
            'GROUP BY "table"', (day,))}

    def usage(self, first: str, last: str) -> list[dict[str, Any]]:
        """Per day and table between two days (inclusive): hands, play seconds, bookings."""
        rows = self.db.execute(
            'SELECT day, "table", count(*), sum(duration_s), '
            'count(DISTINCT booking_id) FROM hands WHERE day BETWEEN ? AND ? '
            'GROUP BY day, "table"', (first, last)).fetchall()
        rows.sort(key=lambda r: (r[0], natural(r[1])))
        return [{"day": day, "table": table, "hands": hands, "play_s": round(play or 0.0, 1),
                 "bookings": bookings} for day, table, hands, play, bookings in rows]

    def records(self, first: str, last: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            'SELECT "table", boot, seq, cycle, start, "end", duration_s, booking_id, '
            'variant, ended FROM hands WHERE day BETWEEN ? AND ? ORDER BY start',
            (first, last)).fetchall()
        return [dict(zip(FIELDS, row, strict=True)) for row in rows]

    def close(self) -> None:
        self.db.close()


def amount(play_s: float, price_per_hour: float) -> float:
    """What the hours played cost at the venue's hourly price, to the cent."""
    return round(play_s / 3600 * price_per_hour + 1e-9, 2)


def usage_csv(rows: list[dict[str, Any]], price_per_hour: float = 0.0) -> str:
    """Per day and table, play time in hours too, and its amount at the hourly price:
    what a spreadsheet bills from."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["day", "table", "hands", "play_s", "play_h", "bookings",
                     "price_per_hour", "amount"])
    for row in rows:
        writer.writerow([row["day"], _cell(row["table"]), row["hands"], f"{row['play_s']:.1f}",
                         f"{row['play_s'] / 3600:.3f}", row["bookings"],
                         f"{price_per_hour:.2f}", f"{amount(row['play_s'], price_per_hour):.2f}"])
    return out.getvalue()


def records_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([*FIELDS, "start_local", "end_local"])
    for row in rows:
        writer.writerow([_cell(row[f]) for f in FIELDS]
                        + [_local(row["start"]), _local(row["end"])])
    return out.getvalue()


def day_of(wall: float) -> str:
    """The venue's local day of a wall time, as the billing reads it."""
    return time.strftime("%Y-%m-%d", time.localtime(wall))


def _local(wall: float | None) -> str:
    return "" if wall is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(wall))


def _cell(value: Any) -> Any:
    # A spreadsheet runs a cell that starts with = + - @ as a formula: a booking id
    # from a mini-program must stay text.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value


def natural(table: str) -> tuple[Any, ...]:
    """t2 before t10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", table))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(
        value, bool) and math.isfinite(value) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
