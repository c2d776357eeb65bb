"""`fault.repeated` rows windowed per fault: a chattering input is one row a minute.

A fault raised again while active is counted on the fault (its `repeats` and rate);
its row in the event log is written for the first repeat of a window, and the repeats
after it in that window are only counted: one row with the count closes the window
when it ends, or before the fault's `fault.cleared`. A case switch bouncing a
thousand times a second writes one row a minute, not a million an hour, so the
table's history is never rotated out by a bad board.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mjtable_core.clock import Clock, Timer

WINDOW_S = 60.0

FaultKey = tuple[str, str, "int | None"]


@dataclass
class _Window:
    started: float
    timer: Timer
    unwritten: int = 0
    last: dict[str, Any] = field(default_factory=dict)


class RepeatRows:
    def __init__(self, clock: Clock, emit: Callable[..., None],
                 window_s: float = WINDOW_S) -> None:
        self.clock = clock
        self._emit = emit
        self.window_s = window_s
        self._open: dict[FaultKey, _Window] = {}

    def repeated(self, key: FaultKey, **fields: Any) -> bool:
        """One repeat of the fault `key`: written if it opens a window; True if written."""
        window = self._open.get(key)
        if window is not None:
            window.unwritten += 1
            window.last = fields
            return False
        timer = self.clock.call_later(self.window_s, lambda: self.close(key))
        self._open[key] = _Window(self.clock.now(), timer)
        self._emit("fault.repeated", **fields)
        return True

    def close(self, key: FaultKey) -> None:
        """End the window of `key` (its time is up, or the fault is cleared): the
        repeats only counted in it are written as one row."""
        window = self._open.pop(key, None)
        if window is None:
            return
        window.timer.cancel()
        if window.unwritten:
            self._emit("fault.repeated", **window.last, unwritten=window.unwritten,
                       window_s=round(self.clock.now() - window.started, 3))
