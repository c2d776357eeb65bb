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
AFTER_BACKLOG = float("inf")   # awake_from while something waits in the backlog
# The rig timers kept for a stall to take over: those spent are forgotten every few dozen.
PRUNE_AT = 64


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
    """`clock` as the host sees it; `stall(duration_s)` freezes the host from now.

    While the host is awake and has nothing put off, its timers are the rig's own,
    scheduled straight on the rig's clock, and its edges are delivered at once: a stall
    is rare, and the indirection cost every timer and edge of every hand. A stall
    takes over the timers still pending then (they join the backlog if they come due
    while it lasts); whatever is scheduled while it lasts or drains is the host's from
    the start.
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        # The rig's own: asked on every edge and timer, one call instead of two.
        self.now = clock.now    # type: ignore[method-assign]
        # run_until, meter, serve_while: the rig's clock's own, where it has them.
        for name in ("run_until", "meter", "serve_while"):
            if hasattr(clock, name):
                setattr(self, name, getattr(clock, name))
        self.stalled_until = NEVER
        # From this time on the host runs what comes to it at once: NEVER while it was
        # never stalled, the stall's end while one lasts with nothing put off yet, and
        # AFTER_BACKLOG while something waits in the backlog or it is being drained.
        self.awake_from = NEVER
        self.deferred = 0               # callbacks a stall put off
        # What came due while stalled, in the order it came: run first when the host
        # wakes, before anything newer (a reply to what the host sends on waking).
        self._backlog: deque[Any] = deque()
        self._draining = False
        self.stalls: list[tuple[float, float]] = []     # (start, end) of each stall
        # The rig's timers scheduled while awake, for a stall to take over; those spent
        # are forgotten every few dozen.
        self._direct: list[Any] = []
        self._prune_at = PRUNE_AT

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
            if self.awake_from != AFTER_BACKLOG:
                self.awake_from = self.stalled_until
        self.stalls.append((start, start + duration_s))
        for timer in self._direct:      # pending rig timers: the host's from now on
            if not timer.cancelled and timer.when >= start:
                timer.callback = self._put_off(timer, timer.callback)
        self._direct = []

    def _put_off(self, timer: Any, callback: Callback) -> Callback:
        def fire() -> None:
            timer.callback = callback   # what the backlog runs, unless cancelled meanwhile
            self.run(timer)
        return fire

    def run(self, timer: Any) -> None:
        """A host callback came due: run it, unless the host is stalled or still
        catching up, when it joins the backlog."""
        if self.clock.now() < self.awake_from:
            self._backlog.append(timer)
            self.awake_from = AFTER_BACKLOG
            self.deferred += 1
            return
        timer.callback()

    def _wake(self) -> None:
        if self.stalled or self._draining:
            return              # a longer stall began meanwhile; its own wake drains
        self._draining = True
        self.awake_from = AFTER_BACKLOG
        try:
            while self._backlog and not self.stalled:
                timer = self._backlog.popleft()
                if not timer.cancelled:
                    timer.callback()
        finally:
            self._draining = False
            if not self._backlog:
                self.awake_from = self.stalled_until

    def call_at(self, when: float, callback: Callback) -> Any:
        if self.clock.now() >= self.awake_from:
            # Awake, nothing put off: the rig's own timer, kept for a stall to take over.
            if len(self._direct) > self._prune_at:
                self._prune()
            timer = self.clock.call_at(when, callback)
            self._direct.append(timer)
            return timer
        host_timer = _HostTimer(self, callback, when)
        host_timer.inner = self.clock.call_at(when, host_timer.fire)
        return host_timer

    def call_later(self, delay: float, callback: Callback) -> Any:
        # As call_at, one call fewer, and no time read while the host was never
        # stalled: every host timer comes through here.
        awake_from = self.awake_from
        if awake_from == NEVER or self.clock.now() >= awake_from:
            if len(self._direct) > self._prune_at:
                self._prune()
            timer = self.clock.call_later(delay, callback)
            self._direct.append(timer)
            return timer
        return self.call_at(self.clock.now() + (0.0 if delay < 0.0 else delay), callback)

    def _prune(self) -> None:
        # Forget the timers spent; grow the limit so this stays rare.
        now = self.clock.now()
        self._direct = [t for t in self._direct if not t.cancelled and t.when >= now]
        self._prune_at = max(PRUNE_AT, 2 * len(self._direct))

    def post(self, callback: Callback) -> None:
        """Thread-safe, as the rig's clock's post is."""
        timer = _HostTimer(self, callback, 0.0)
        self.clock.post(timer.fire)

    def deliver(self, callback: Callable[..., None], *args: Any) -> None:
        """Run `callback(*args)` now — a call into the host from the table's own
        thread of events (an input change) — or, while the host is stalled, when it
        wakes."""
        awake_from = self.awake_from
        if awake_from != NEVER and self.clock.now() < awake_from:
            # Put off: kept as a timer of the host's, run in its turn when it wakes.
            self.run(_HostTimer(self, lambda: callback(*args), self.clock.now()))
            return
        callback(*args)     # the host awake and caught up: no timer to keep
