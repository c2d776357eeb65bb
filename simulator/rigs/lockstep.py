"""Virtual time that waits for a real serial link: the clock of `simulate --hal ioboard`.

The virtual clock runs the table as fast as the CPU allows, but bytes on a pty or a
socket take real time to cross. `LockstepClock` is a discrete-event clock that moves
to its next timer only when the link is idle: every byte written by either end has
been read by the other and every callback the readers posted has run. So a frame
costs no virtual time, timings are exactly those of the in-process simulator, and a
frame lost to noise is noticed the same way as on a table: by a retransmission
timer that fires later in virtual time. (docs/protocol.md, "Time in the simulator".)

Bytes are counted by `Meter`: the writer counts before writing, the reader counts a
chunk as consumed only when it comes back for the next read, i.e. after it has
posted whatever the chunk held.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from mjtable_core.clock import VirtualClock

Callback = Callable[[], None]
STALL_S = 10.0     # wall seconds the link may stay busy before the run is declared stuck


class LinkStalled(RuntimeError):
    """Bytes were written but never read: an end of the link has stopped reading."""


class Meter:
    """Bytes written and not yet consumed, across both directions of the link."""

    def __init__(self, wake: threading.Condition) -> None:
        self._cond = wake
        self.in_flight = 0

    def sent(self, n: int) -> None:
        with self._cond:
            self.in_flight += n

    def consumed(self, n: int) -> None:
        if n:
            with self._cond:
                self.in_flight -= n
                self._cond.notify_all()


class MeteredPort:
    """A pyserial port whose traffic is counted by a `Meter` (the host's side)."""

    def __init__(self, port: Any, meter: Meter) -> None:
        self._port = port
        self._meter = meter
        self._unconsumed = 0

    def write(self, data: bytes) -> int | None:
        self._meter.sent(len(data))
        return self._port.write(data)

    def read(self, size: int = 1) -> bytes:
        # Coming back for more means the last chunk has been handled and posted.
        self._meter.consumed(self._unconsumed)
        data = self._port.read(size)
        self._unconsumed = len(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)


class LockstepClock(VirtualClock):
    """A `VirtualClock` whose time moves only while the link is idle."""

    def __init__(self) -> None:
        super().__init__()
        self._cond = threading.Condition()
        self._posted: deque[Callback] = deque()
        self.meter = Meter(self._cond)
        self._busy: Callable[[], bool] | None = None

    def post(self, callback: Callback) -> None:
        """Thread-safe: readers hand frames to the loop through here."""
        with self._cond:
            self._posted.append(callback)
            self._cond.notify_all()

    def _run_posted(self) -> bool:
        ran = False
        while True:
            with self._cond:
                if not self._posted:
                    return ran
                callback = self._posted.popleft()
            self.events_run += 1
            callback()
            ran = True

    def serve_while(self, running: Callable[[], bool]) -> None:
        """Run posted callbacks, without moving time, while `running()` (a handshake)."""
        while True:
            self._run_posted()
            with self._cond:
                if self._posted:
                    continue
                if not running():
                    return
                self._cond.wait(STALL_S)

    def _wait_idle(self, busy: Callable[[], bool] | None) -> None:
        """Run posted callbacks until the link is quiet (and `busy()` is false)."""
        while True:
            self._run_posted()
            with self._cond:
                if self._posted:
                    continue
                if self.meter.in_flight == 0 and not (busy and busy()):
                    return
                if not self._cond.wait(STALL_S) and not self._posted:
                    raise LinkStalled(f"{self.meter.in_flight} byte(s) on the link were "
                                      f"not read within {STALL_S} s at t={self._now:.3f}")

    def run_until(self, deadline: float, until: Callable[[], bool] | None = None,
                  busy: Callable[[], bool] | None = None) -> None:
        """Run events up to `deadline`, or until `until()`; `busy()` holds time still.

        VirtualClock's loop, with the link settled before every step (`_settle`).
        Raises LinkStalled when bytes stay unread for STALL_S wall seconds.
        """
        self._busy = busy
        try:
            super().run_until(deadline, until)
        finally:
            self._busy = None

    def _settle(self) -> bool:
        self._wait_idle(self._busy)
        return True
