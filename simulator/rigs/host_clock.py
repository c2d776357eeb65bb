"""The host process's own view of the rig's clock, which a `host_stall` can freeze.

A stalled host (a garbage collection, a blocked fsync, a flood of API clients) runs
nothing: not the controller's timers, not the HAL's heartbeat or link timers, not the
frames its reader thread posted, not the input changes the table reports. Everything
the host side schedules through this clock that comes due while it is stalled runs
when the stall ends, in the order it came due. The table, the board and the physics
run on the rig's clock underneath and are never stalled: that is the point — the board
stops what it was armed to stop, and its failsafe acts on a host gone silent.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from mjtable_core.clock import Clock

Callback = Callable[[], None]
NEVER = float("-inf")      # stalled_until of a host never stalled


class _HostTimer:
    """A timer of the host's: cancelled here, it stays cancelled however often a stall
    put it off."""

    __slots__ = ("_host", "callback", "cancelled", "inner", "when")

    def __init__(self, host: HostClock, callback: Callback, when: float) -> None:
        self._host = host
        self.callback = callback
        self.cancelled = False
        self.when = when
        self.inner: Any = None

    # The rig's timer calls `fire`, so it holds this one: once it fired or was
    # cancelled, this one lets go of it. Kept, the pair is a reference cycle that
    # only a full garbage collection frees (the controller keeps its timers a while).
    def fire(self) -> None:
        self.inner = None
        if not self.cancelled:
            self._host.run(self)

    def cancel(self) -> None:
        self.cancelled = True
        if self.inner is not None:
            self.inner.cancel()
            self.inner = None


class HostClock:
    """`clock` as the host sees it; `stall(duration_s)` freezes the host from now."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        # The rig's own: asked on every edge and timer, one call instead of two.
        self.now = clock.now    # type: ignore[method-assign]
        self.stalled_until = NEVER
        self.deferred = 0               # callbacks a stall put off
        # What came due while stalled, in the order it came: run first when the host
        # wakes, before anything newer (a reply to what the host sends on waking).
        self._backlog: deque[_HostTimer] = deque()
        self._draining = False
        self.stalls: list[tuple[float, float]] = []     # (start, end) of each stall

    def __getattr__(self, name: str) -> Any:
        # run_until, meter, serve_while: the rig's clock's own.
        return getattr(self.clock, name)

    def now(self) -> float:
        return self.clock.now()

    @property
    def stalled(self) -> bool:
        return self.clock.now() < self.stalled_until

    def stall(self, duration_s: float) -> None:
        start = self.clock.now()
        if start + duration_s > self.stalled_until:
            self.stalled_until = start + duration_s
            self.clock.call_at(self.stalled_until, self._wake)
        self.stalls.append((start, start + duration_s))

    def run(self, timer: _HostTimer) -> None:
        """A host callback came due: run it, unless the host is stalled or still
        catching up, when it joins the backlog."""
        if self._backlog or self._draining or (self.stalled_until != NEVER
                                               and self.clock.now() < self.stalled_until):
            self._backlog.append(timer)
            self.deferred += 1
            return
        timer.callback()

    def _wake(self) -> None:
        if self.stalled or self._draining:
            return              # a longer stall began meanwhile; its own wake drains
        self._draining = True
        try:
            while self._backlog and not self.stalled:
                timer = self._backlog.popleft()
                if not timer.cancelled:
                    timer.callback()
        finally:
            self._draining = False

    def call_at(self, when: float, callback: Callback) -> _HostTimer:
        timer = _HostTimer(self, callback, when)
        timer.inner = self.clock.call_at(when, timer.fire)
        return timer

    def call_later(self, delay: float, callback: Callback) -> _HostTimer:
        return self.call_at(self.now() + (0.0 if delay < 0.0 else delay), callback)

    def post(self, callback: Callback) -> None:
        """Thread-safe, as the rig's clock's post is."""
        timer = _HostTimer(self, callback, 0.0)
        self.clock.post(timer.fire)

    def deliver(self, callback: Callable[..., None], *args: Any) -> None:
        """Run `callback(*args)` now — a call into the host from the table's own
        thread of events (an input change) — or, while the host is stalled, when it
        wakes."""
        if self._backlog or self._draining or (self.stalled_until != NEVER
                                               and self.clock.now() < self.stalled_until):
            # Put off: kept as a timer of the host's, run in its turn when it wakes.
            self.run(_HostTimer(self, lambda: callback(*args), self.clock.now()))
            return
        callback(*args)     # the host awake and caught up: no timer to keep
