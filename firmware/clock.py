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

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol

Callback = Callable[[], None]


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

    def __init__(self) -> None:
        self._now = 0.0
        self._queue: list[tuple[float, int, _VirtualTimer]] = []
        self._seq = itertools.count()
        self._stopped = False
        self.events_run = 0

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callback) -> _VirtualTimer:
        timer = _VirtualTimer(max(when, self._now), callback)
        heapq.heappush(self._queue, (timer.when, next(self._seq), timer))
        return timer

    def call_later(self, delay: float, callback: Callback) -> _VirtualTimer:
        return self.call_at(self._now + max(delay, 0.0), callback)

    def post(self, callback: Callback) -> None:
        self.call_at(self._now, callback)

    def stop(self) -> None:
        self._stopped = True

    def run_until(self, deadline: float, until: Callable[[], bool] | None = None) -> None:
        """Run events up to `deadline` seconds, or until `until()` or `stop()`."""
        self._stopped = False
        queue = self._queue
        while queue and not self._stopped:
            when, _, timer = queue[0]
            if when > deadline:
                break
            heapq.heappop(queue)
            if timer.cancelled:
                continue
            self._now = when
            self.events_run += 1
            timer.callback()
            if until is not None and until():
                return
        if not self._stopped and (not queue or queue[0][0] > deadline):
            self._now = max(self._now, deadline)


class RealClock:
    """The asyncio loop's monotonic time, scaled by `speed` for fast-forward."""

    def __init__(self, loop: asyncio.AbstractEventLoop, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._loop = loop
        self._speed = speed
        self._origin = loop.time()

    def now(self) -> float:
        return (self._loop.time() - self._origin) * self._speed

    def call_at(self, when: float, callback: Callback) -> asyncio.TimerHandle:
        return self._loop.call_at(self._origin + when / self._speed, callback)

    def call_later(self, delay: float, callback: Callback) -> asyncio.TimerHandle:
        return self._loop.call_later(max(delay, 0.0) / self._speed, callback)

    def post(self, callback: Callback) -> None:
        self._loop.call_soon_threadsafe(callback)
