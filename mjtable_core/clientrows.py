"""Every event-log row a client can cause goes through here: counted, capped, bounded
(the daemon's API rows, and the venue desk's refusals, windowed the same).

A row that a request can cause (an error inside the daemon, a refusal, a dropped
connection, an open diagnosis, a technician's action) is written at most `per_key`
times per key and window; the rest of the window is counted and one `KIND.repeated`
row with the count closes it. Over every key together at most `total` rows a window
are written; past that, rows are only counted, by kind, in one `api.rows.suppressed`
row when the window ends. So a flood of requests writes a few hundred rows a minute at
most, and the table's own history is never rotated out by clients.

Every string in such a row is bounded: past `TEXT_BYTES` it is kept as its start, its
length and a sha256 digest (an open diagnosis carried six 64 KiB symptoms a row).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from mjtable_core.clock import Clock

WINDOW_S = 60.0
TOTAL_PER_WINDOW = 60       # rows clients may cause in a window, over every key: at most
                            # 86,400 a day, well under the 200,000 rows kept
TEXT_BYTES = 256            # a string in a client row past this is stored as a digest
SHOWN_CHARS = 120           # how much of a long string is kept before its digest
KEYS_KEPT = 1024            # keys with a window open at once; keys past it share one
OTHER_KEYS = "<other keys>"


def bounded(value: Any, depth: int = 0) -> Any:
    """`value` with every string past TEXT_BYTES replaced by its start and digest."""
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        if len(data) <= TEXT_BYTES:
            return value
        digest = hashlib.sha256(data).hexdigest()
        return f"{value[:SHOWN_CHARS]}… ({len(data)} bytes, sha256 {digest})"
    if depth > 8:
        return "…"
    if isinstance(value, dict):
        return {bounded(k, depth + 1): bounded(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [bounded(v, depth + 1) for v in value]
    return value


@dataclass
class _Window:
    started: float
    written: int = 0
    count: int = 0      # rows only counted


class ClientRows:
    """The gate between client-caused rows and `emit` (the controller's)."""

    def __init__(self, clock: Clock, emit: Callable[..., None], window_s: float = WINDOW_S,
                 total: int = TOTAL_PER_WINDOW, suppressed: str = "api.rows.suppressed") -> None:
        self.clock = clock
        self.suppressed_kind = suppressed
        self._emit = emit
        self.window_s = window_s
        self.total = total
        self._keys: dict[tuple[str, Hashable], _Window] = {}
        self._started = clock.now()
        self._written = 0
        self._suppressed: dict[str, int] = {}

    def row(self, kind: str, key: Hashable, per_key: int = 1, **fields: Any) -> bool:
        """Write one row of `kind` unless its key or the total is spent; True if written."""
        self.flush()
        window = self._keys.get((kind, key))
        if window is None:
            if len(self._keys) >= KEYS_KEPT:
                # Keys are the client's to choose (the desk's are addresses, and a local
                # user has all of 127.0.0.0/8): past KEYS_KEPT they share one window,
                # so neither the memory nor a flush grows with the flood.
                key = OTHER_KEYS
                window = self._keys.get((kind, key))
            if window is None:
                window = self._keys[(kind, key)] = _Window(self.clock.now())
        if window.written >= per_key:
            window.count += 1
            return False
        if not self.emit(kind, **fields):
            return False
        window.written += 1
        return True

    def emit(self, kind: str, **fields: Any) -> bool:
        """Write one row if the window's total allows it (the refusal, drop and open
        diagnosis logs keep their own windows and come through here)."""
        self._roll()
        if self._written >= self.total:
            self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
            return False
        self._written += 1
        self._emit(kind, **bounded(fields))
        return True

    def _ended(self, now: float, everything: bool) -> list[tuple[tuple[str, Hashable], _Window]]:
        """The windows whose time is up, oldest first (every one when `everything`)."""
        ended = []
        for item in self._keys.items():
            if not everything and now - item[1].started < self.window_s:
                break
            ended.append(item)
        return ended

    def _roll(self, everything: bool = False) -> None:
        now = self.clock.now()
        if not everything and now - self._started < self.window_s:
            return
        if self._suppressed:
            self._emit(self.suppressed_kind, rows=dict(sorted(self._suppressed.items())),
                       window_s=round(now - self._started, 3))
        self._started, self._written, self._suppressed = now, 0, {}

    def flush(self, everything: bool = False) -> None:
        """Close the windows that have ended (all of them when `everything`)."""
        now = self.clock.now()
        # Windows are opened in time order, so the ended ones are the first: the walk
        # stops at the first still open (it ran over every key on every row: 12 ms a
        # row at 20,000 addresses, the desk's loop spent by 1,000 refusals a second).
        for (kind, key), window in self._ended(now, everything):
            del self._keys[(kind, key)]
            if window.count:
                self.emit(f"{kind}.repeated", key=_shown(key), count=window.count,
                          window_s=round(now - window.started, 3))
        self._roll(everything)


def _shown(key: Hashable) -> Any:
    return list(key) if isinstance(key, tuple) else key
