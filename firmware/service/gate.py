"""The booking gate: whether the venue has enabled this table, and for how long.

`enable {for_s, booking_id}` opens it for `for_s` seconds counted on the table's own
clock, so a lost network neither extends nor cuts a paid session; `disable {reason}`
closes it. The seconds left are kept in the ledger's file at every checkpoint, so a
power cut costs a paid session nothing (it may give back up to one checkpoint's
seconds). With `[venue] gate` off (the default) the table plays whatever the gate
says; the gate still names the booking each hand is billed to.
"""

from __future__ import annotations

from typing import Any

from firmware.i18n import N_, _
from mjtable_core.clock import Clock

NOT_ENABLED = N_("not enabled by the venue")
EXPIRED = N_("the booking has expired")
DISABLED = N_("disabled by the venue")


class BookingGate:
    def __init__(self, clock: Clock, enforced: bool) -> None:
        self.clock = clock
        self.enforced = enforced
        self.until: float | None = None
        self.booking_id: str | None = None
        self.reason: str | None = None      # the venue's, after a disable

    def enable(self, for_s: float, booking_id: str | None) -> None:
        self.until = self.clock.now() + for_s
        self.booking_id = booking_id
        self.reason = None

    def disable(self, reason: str) -> None:
        self.until = None
        self.reason = reason

    def booking(self) -> str | None:
        """The booking a hand starting now is billed to."""
        return self.booking_id if self.until is not None and self._open() else None

    def closed_why(self) -> str | None:
        """Why no new hand may start, or None (always None with the gate off)."""
        if not self.enforced or self._open():
            return None
        if self.reason is not None:
            return DISABLED
        return EXPIRED if self.booking_id is not None else NOT_ENABLED

    def _open(self) -> bool:
        return self.until is not None and self.clock.now() < self.until

    def snapshot(self) -> dict[str, Any]:
        """What survives a restart: the seconds left, not a time on a clock that restarts."""
        left = None if self.until is None else max(0.0, self.until - self.clock.now())
        return {"left_s": left, "booking_id": self.booking_id, "reason": self.reason}

    def restore(self, saved: dict[str, Any]) -> None:
        left = saved.get("left_s")
        self.until = None if not isinstance(left, int | float) else self.clock.now() + left
        booking, reason = saved.get("booking_id"), saved.get("reason")
        self.booking_id = booking if isinstance(booking, str) else None
        self.reason = reason if isinstance(reason, str) else None

    def picture(self) -> dict[str, Any]:
        """The gate in the status picture: `until_t` on the table's clock (the status's
        `t` tells the seconds left), so the picture changes only when the gate does."""
        why = self.closed_why()
        return {"enforced": self.enforced, "open": self._open(),
                "until_t": None if self.until is None else round(self.until, 3),
                "booking_id": self.booking_id, "reason": self.reason,
                "held": _(why) if why else None}

    def status(self) -> dict[str, Any]:
        left = None if self.until is None else max(0.0, self.until - self.clock.now())
        return {"enforced": self.enforced, "open": self._open(),
                "left_s": None if left is None else round(left, 1),
                "booking_id": self.booking_id, "reason": self.reason}
