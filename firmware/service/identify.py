"""`identify` from the venue: the table shows staff which one it is, for a few seconds.

The display alternates "Id" with what it showed, twice a second, for IDENTIFY_S of
table time. Whatever the table writes meanwhile wins: a blink puts the old text back
only over its own "Id", so a fault code or dice written during the blink stays. The
lamps are left alone: they say who deals and whether the table is ready, and a blink
could not tell its own write from the table's.
"""

from __future__ import annotations

from typing import Any

from hal.interface import Hal
from mjtable_core.clock import Clock, Timer

IDENTIFY_S = 5.0
BLINK_S = 0.5
SHOWN = "Id"


class Identify:
    def __init__(self, clock: Clock, hal: Hal) -> None:
        self.clock = clock
        self.hal = hal
        self.until = 0.0
        self._timer: Timer | None = None
        self._saved: Any = ""

    @property
    def blinking(self) -> bool:
        return self._timer is not None

    def start(self) -> None:
        """Blink for IDENTIFY_S from now (again from now if already blinking)."""
        self.until = self.clock.now() + IDENTIFY_S
        if self._timer is None:
            self._show()

    def _show(self) -> None:
        self._saved = self.hal.read("display")
        self.hal.write("display", SHOWN)
        self._timer = self.clock.call_later(BLINK_S, self._hide)

    def _hide(self) -> None:
        if self.hal.read("display") == SHOWN:
            self.hal.write("display", self._saved)
        if self.clock.now() + BLINK_S >= self.until - 1e-6:
            self._timer = None
            return
        self._timer = self.clock.call_later(BLINK_S, self._show)
