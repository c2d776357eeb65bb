"""What the venue knows of each table, fed by the tables' MQTT topics (docs/venue.md).

A tile's state is the owner's word for it, in this order: offline (no `online` on
`avail`), fault (an active fault or an e-stop), playing (a hand in play), booked (a
booking holds the table), idle. The dashboard's pages and streams read tiles from
here; whoever changes a table (a message, a booking) wakes the watchers with the
table's id, and each watcher reads the newest tile when it is ready (a slow page
skips the states it missed, it never queues them).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from venue.desk.tables.store import day_of, natural
from venue.wire import ROOT

STATES = ("idle", "playing", "booked", "fault", "offline")
# The topics the venue reads: never `cmd` (commands are the venue's own).
SUBSCRIPTIONS = tuple(f"{ROOT}/+/{leaf}" for leaf in (
    "avail", "info", "status", "faults", "usage", "event/fault", "event/hand", "cmd/ack"))


@dataclass
class Table:
    id: str
    online: bool = False
    seen: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    faults: list[dict[str, Any]] = field(default_factory=list)
    fault_since: float | None = None    # wall time the oldest active fault was first heard
    usage: dict[str, Any] = field(default_factory=dict)
    booking: dict[str, Any] | None = None   # {"id", "until"} while a booking holds it
    day: str = ""                        # the local day `hands`/`play_s` count
    hands: int = 0
    play_s: float = 0.0

    def state(self, now: float) -> str:
        if not self.online:
            return "offline"
        if self.faults or self.status.get("estopped"):
            return "fault"
        if self.status.get("hand_in_play"):
            return "playing"
        if self.booked(now):
            return "booked"
        return "idle"

    def booked(self, now: float) -> bool:
        if self.booking is not None and self.booking.get("until", 0) > now:
            return True
        gate = self.status.get("gate")
        return isinstance(gate, dict) and bool(gate.get("open"))


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def loads(raw: bytes) -> Any:
    """A table's JSON as a browser reads it: NaN and Infinity (which Python's json
    takes) are malformed, or one table's NaN would make every tile unreadable."""
    return json.loads(raw, parse_constant=_not_json)


class Fleet:
    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now
        self.tables: dict[str, Table] = {}
        self._watchers: list[Watch] = []
        # Bumped at every change of a table: what was built from it before is stale.
        self.versions: dict[str, int] = {}
        # The stream's encoded tile per table, with the version it was built from.
        self.encoded: dict[str, tuple[int, bytes]] = {}
        # Called with (table, record) for every `event/hand`, (table, fault) for every
        # `event/fault`, (table, ack) for every `cmd/ack`: the store, notifications.
        self.on_hand: list[Callable[[str, dict[str, Any]], None]] = []
        self.on_fault: list[Callable[[str, dict[str, Any]], None]] = []
        self.on_ack: list[Callable[[str, dict[str, Any]], None]] = []
        # (table, active faults) for every retained `faults` list: incidents clear.
        self.on_faults: list[Callable[[str, list[dict[str, Any]]], None]] = []
        # (table, status) for every `status`, (table, online) for every `avail`: the
        # e-stop and an offline table page too.
        self.on_status: list[Callable[[str, dict[str, Any]], None]] = []
        self.on_avail: list[Callable[[str, bool], None]] = []

    # -- fed by the broker --------------------------------------------------------

    def feed(self, topic: str, raw: bytes) -> None:
        """One message from the broker; anything malformed is ignored (a table cannot
        break the venue's page)."""
        parts = topic.split("/")
        if len(parts) < 4 or "/".join(parts[:2]) != ROOT or not parts[2]:
            return
        table, leaf = parts[2], "/".join(parts[3:])
        if leaf == "avail":
            self._avail(table, raw)
            return
        try:
            # A hand record is billing: kept even with a NaN in it (the store keeps
            # only finite numbers), or its gap would hold every later record's ack.
            value = (json.loads(raw) if leaf == "event/hand" else loads(raw)) if raw \
                else None
        except (ValueError, RecursionError):     # RecursionError: nested too deep
            return
        if not isinstance(value, dict):
            if leaf in ("status", "faults", "info", "usage") and not raw:
                self._touch(table)      # a retained message deleted
            return
        if leaf == "status":
            self.table(table).status = value
            for callback in self.on_status:
                callback(table, value)
        elif leaf == "faults":
            self._faults(table, value)
            for callback in self.on_faults:
                callback(table, self.table(table).faults)
        elif leaf == "info":
            self.table(table).info = value
        elif leaf == "usage":
            self.table(table).usage = value
        elif leaf == "event/hand":
            for callback in self.on_hand:
                callback(table, value)
            return
        elif leaf == "event/fault":
            self._fault_event(table, value)
            for callback in self.on_fault:
                callback(table, value)
            return
        elif leaf == "cmd/ack":
            self._gate_answer(table, value)
            for callback in self.on_ack:
                callback(table, value)
            return
        else:
            return
        self._touch(table)

    def _avail(self, table: str, raw: bytes) -> None:
        entry = self.table(table)
        entry.online = raw.strip() == b"online"
        self._touch(table)
        for callback in self.on_avail:
            callback(table, entry.online)

    def _faults(self, table: str, value: dict[str, Any]) -> None:
        entry = self.table(table)
        active = value.get("active")
        entry.faults = [f for f in active if isinstance(f, dict)] if isinstance(
            active, list) else []
        # Each fault says when the table raised it: the age survives the venue's and
        # the agent's restarts (a retained list heard anew is not a new fault).
        raised = [float(f["since"]) for f in entry.faults if _wall(f.get("since"))]
        if not entry.faults:
            entry.fault_since = None
        elif raised:
            entry.fault_since = min(min(raised), self.now())
        elif entry.fault_since is None:
            entry.fault_since = self.now()

    def _fault_event(self, table: str, fault: dict[str, Any]) -> None:
        # The event carries the table's wall stamp of the fault: the age counts from
        # there, not from when the retained list caught up.
        entry = self.table(table)
        wall = fault.get("wall")
        if isinstance(wall, int | float) and (entry.fault_since is None
                                              or wall < entry.fault_since):
            entry.fault_since = min(float(wall), self.now())
            if entry.faults:
                self._touch(table)

    def _gate_answer(self, table: str, ack: dict[str, Any]) -> None:
        # An accepted enable or disable answers with the table's gate (firmware/service/gate.py):
        # whoever sent it, the tile shows the booking the table itself holds.
        gate = ack.get("result")
        if not ack.get("accepted") or not isinstance(gate, dict) or "open" not in gate:
            return
        left = gate.get("left_s")
        if gate.get("open") and isinstance(left, int | float):
            booking = gate.get("booking_id")
            self.book(table, booking if isinstance(booking, str) else None,
                      self.now() + float(left))
        else:
            self.book(table, None, None)

    # -- told by the venue's own parts ------------------------------------------

    def count_hand(self, table: str, record: dict[str, Any]) -> None:
        """A stored hand record: today's hands and hours."""
        entry = self.table(table)
        self._roll(entry)
        start = record.get("start")
        if isinstance(start, int | float) and day_of(start) == entry.day:
            duration = record.get("duration_s")
            entry.hands += 1
            if isinstance(duration, int | float) and not isinstance(duration, bool) \
                    and math.isfinite(duration):
                entry.play_s += float(duration)
            self._touch(table)

    def set_today(self, table: str, hands: int, play_s: float) -> None:
        entry = self.table(table)
        entry.day, entry.hands, entry.play_s = day_of(self.now()), hands, play_s

    def book(self, table: str, booking_id: str | None, until: float | None) -> None:
        """A booking holds the table until `until` (wall); None releases it."""
        self.table(table).booking = (None if until is None
                                     else {"id": booking_id, "until": until})
        self._touch(table)

    # -- read by the pages ------------------------------------------------------

    def table(self, table: str) -> Table:
        entry = self.tables.get(table)
        if entry is None:
            entry = self.tables[table] = Table(table)
        return entry

    def ids(self) -> list[str]:
        return sorted(self.tables, key=natural)

    def tile(self, table: str) -> dict[str, Any]:
        """One tile as the page draws it (JSON)."""
        entry = self.table(table)
        self._roll(entry)
        now = self.now()
        oldest = entry.faults[0] if entry.faults else {}
        status = entry.status
        return {
            "id": entry.id, "state": entry.state(now),
            "fault": oldest.get("code") if entry.faults else (
                "E-STOP" if status.get("estopped") and entry.online else None),
            "fault_id": oldest.get("id") if entry.faults else None,
            "fault_summary": oldest.get("summary"),
            "faults": len(entry.faults),
            "fault_since": entry.fault_since,
            "display": status.get("display"),
            "hands_today": entry.hands, "play_s_today": round(entry.play_s, 1),
            "booking": _booking(entry, now),
            "console": _console(entry.info.get("console_url")),
            "model": entry.info.get("model"), "variant": entry.info.get("variant"),
        }

    def tiles(self) -> list[dict[str, Any]]:
        return [self.tile(table) for table in self.ids()]

    def counts(self) -> dict[str, int]:
        now = self.now()
        counts = dict.fromkeys(STATES, 0)
        for entry in self.tables.values():
            counts[entry.state(now)] += 1
        return counts

    def watch(self) -> Watch:
        watch = Watch(self)
        self._watchers.append(watch)
        return watch

    def close_watches(self) -> None:
        """The venue stops: every page's stream ends now, not at a timeout."""
        for watch in list(self._watchers):
            watch.close()

    # -- inside -------------------------------------------------------------------

    def _roll(self, entry: Table) -> None:
        today = day_of(self.now())
        if entry.day != today:
            entry.day, entry.hands, entry.play_s = today, 0, 0.0

    def _touch(self, table: str) -> None:
        entry = self.table(table)
        entry.seen = True
        self.versions[table] = self.versions.get(table, 0) + 1
        for watch in self._watchers:
            watch.mark(table)


def _wall(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        math.isfinite(value) and value > 0)


def _booking(entry: Table, now: float) -> str | None:
    if not entry.booked(now):
        return None
    if entry.booking is not None and entry.booking.get("until", 0) > now:
        return entry.booking.get("id")
    gate = entry.status.get("gate")
    booking = gate.get("booking_id") if isinstance(gate, dict) else None
    return booking if isinstance(booking, str) else None


def _console(url: Any) -> str | None:
    """Only a web address opens from a tile (never javascript: or a file)."""
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        return url
    return None


class Watch:
    """One page's view of the changes: the set of tables changed since it last read."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.dirty: set[str] = set()
        self.wake = asyncio.Event()
        self.closed = False

    def mark(self, table: str) -> None:
        self.dirty.add(table)
        self.wake.set()

    async def changed(self, timeout: float, gather_s: float = 0.0) -> list[str]:
        """The tables changed since the last call (empty after `timeout` seconds);
        `gather_s`: after the first change, wait that long for more (one write for a
        burst, not one per table)."""
        try:
            await asyncio.wait_for(self.wake.wait(), timeout)
        except TimeoutError:
            return []
        if gather_s > 0 and not self.closed:
            await asyncio.sleep(gather_s)
        self.wake.clear()
        tables, self.dirty = self.dirty, set()
        return sorted(tables, key=natural)

    def close(self) -> None:
        """Ends the watch; a page waiting in `changed` wakes up at once."""
        self.closed = True
        self.wake.set()
        if self in self.fleet._watchers:
            self.fleet._watchers.remove(self)
