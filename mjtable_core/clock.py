"""The one clock of the firmware.

Firmware code asks the clock for the time and for timers; it never sleeps and never
reads the wall clock. Two implementations share one interface:

- `VirtualClock`: discrete events in a heap, run as fast as the CPU allows. The
  simulator and the firmware schedule on the same instance, so a whole table runs
  deterministically from a seed.
- `RealClock`: the asyncio loop, optionally scaled (`speed`) so a simulated table can
  be fast-forwarded while still running on real timers.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    # Only RealClock's loop is asyncio's: a simulation never imports it (a tenth of
    # its start-up).
    import asyncio

Callback = Callable[[], None]
_heappush = heapq.heappush


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the clock started (monotonic)."""
        ...

    def call_at(self, when: float, callback: Callback) -> Timer: ...

    def call_later(self, delay: float, callback: Callback) -> Timer: ...

    def post(self, callback: Callback) -> None:
        """Run `callback` soon inside the loop; safe to call from any thread."""
        ...


class _VirtualTimer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callback) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """Discrete-event time: `run_until` pops events in time order, ties in FIFO order."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now = start_s
        self._queue: list[tuple[float, int, _VirtualTimer]] = []
        self._seq = itertools.count()
        self._stopped = False
        self.events_run = 0

    def now(self) -> float:
        return self._now

    # max() spelled out, and call_later not through call_at: these run for every timer
    # of the table and the firmware.
    def call_at(self, when: float, callback: Callback) -> _VirtualTimer:
        now = self._now
        if now > when:
            when = now
        timer = _VirtualTimer(when, callback)
        _heappush(self._queue, (when, next(self._seq), timer))
        return timer

    def call_later(self, delay: float, callback: Callback) -> _VirtualTimer:
        # No max(now, ...) around it: adding a delay of zero or more never lands
        # before now.
        when = self._now + (0.0 if delay < 0.0 else delay)
        timer = _VirtualTimer(when, callback)
        _heappush(self._queue, (when, next(self._seq), timer))
        return timer

    def post(self, callback: Callback) -> None:
        # call_at, spelled out: every stop the HAL ends reports through here.
        now = self._now
        _heappush(self._queue, (now, next(self._seq), _VirtualTimer(now, callback)))

    def stop(self) -> None:
        self._stopped = True

    def run_until(self, deadline: float, until: Callable[[], bool] | None = None) -> None:
        """Run events up to `deadline` seconds, or until `until()` or `stop()`."""
        self._stopped = False
        queue = self._queue
        pop = heapq.heappop
        # A clock with nothing to settle (this one) skips the call at every event, and
        # asks `until` after each event instead (`after`); events are counted here and
        # added to events_run on the way out. The loop is the cost of every event.
        settles = type(self)._settle is not VirtualClock._settle
        after = None if settles else until
        run = 0
        try:
            while not self._stopped:
                if settles and self._settle() and until is not None and until():
                    return
                # The next live timer due by `deadline`: its time becomes now.
                while queue and queue[0][0] <= deadline:
                    when, _, timer = pop(queue)
                    if not timer.cancelled:
                        break
                else:
                    self._now = max(self._now, deadline)
                    return
                self._now = when
                run += 1
                timer.callback()
                # A clock that settles asks `until` at the top, once what the callback
                # sent on a link has landed; asked before, it judges a half-delivered
                # table.
                if after is not None and after():
                    return
        finally:
            self.events_run += run

    def _settle(self) -> bool:
        """Before time moves on: run what is not a timer (a clock that waits for a
        link runs what its readers posted). True when something may have run."""
        return False


class RealClock:
    """Discrete events paced by the asyncio loop's monotonic time, scaled by `speed`.

    Events are kept in the clock's own heap, exactly as in `VirtualClock`, and run in
    time order when the loop's time reaches them. Inside an event, `now()` is the time
    the event was due: a busy loop delays reactions but never reorders events or
    stretches the time between them. Work from other threads (`post`) joins the heap
    at the current time.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._loop = loop
        self._speed = speed
        self._origin = loop.time()
        self._queue: list[tuple[float, int, _VirtualTimer]] = []
        self._seq = itertools.count()
        self._handle: asyncio.TimerHandle | None = None
        self._handle_at = float("inf")
        self._due: float | None = None
        self._last_due = 0.0

    def _real(self) -> float:
        return (self._loop.time() - self._origin) * self._speed

    def now(self) -> float:
        if self._due is not None:
            return self._due
        return max(self._last_due, self._real())

    def call_at(self, when: float, callback: Callback) -> _VirtualTimer:
        timer = _VirtualTimer(max(when, self._last_due), callback)
        heapq.heappush(self._queue, (timer.when, next(self._seq), timer))
        if self._due is None:
            self._arm()
        return timer

    def call_later(self, delay: float, callback: Callback) -> _VirtualTimer:
        return self.call_at(self.now() + max(delay, 0.0), callback)

    def post(self, callback: Callback) -> None:
        # Stamped when it happened (the loop's monotonic time is safe to read from any
        # thread): a frame that arrived while the loop was busy runs before the timers
        # that came due after it, not after all of them (a retransmission or silence
        # timer must not fire over an ACK that is already waiting).
        self._loop.call_soon_threadsafe(self._run_posted, callback, self._real())

    def _run_posted(self, callback: Callback, when: float) -> None:
        # Join the heap at that time and run at once: one pass through the loop for a
        # sensor edge, not two.
        self.call_at(when, callback)
        self._wake()

    def _arm(self) -> None:
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)
        if not self._queue:
            return
        first = self._queue[0][0]
        if self._handle is not None and self._handle_at <= first:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._handle_at = first
        self._handle = self._loop.call_at(self._origin + first / self._speed, self._wake)

    def _wake(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None
        self._handle_at = float("inf")
        real = self._real()
        queue = self._queue
        try:
            while queue and queue[0][0] <= real:
                when, _, timer = heapq.heappop(queue)
                if timer.cancelled:
                    continue
                self._due = self._last_due = when
                timer.callback()
        finally:
            self._due = None
            self._arm()
