"""Moving parts with a position that advances only while their motor runs.

A `Cam` turns one revolution per `turn_s` and fires callbacks at fractions of the
turn (leave home, take a tile, raise a wall, back home). A `Travel` is the lid: a
position between its two stops. Both remember where they stopped, so a motor
switched off mid-motion resumes from there.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mjtable_core.clock import Clock, Timer

LEAVE_STOP = 0.02     # the lid has left a stop once this far from it (its next wake-up)


class Cam:
    def __init__(self, clock: Clock, turn_s: float,
                 marks: list[tuple[float, Callable[[], None]]],
                 on_turn_end: Callable[[], None],
                 jitter: float = 0.0, rng: random.Random | None = None) -> None:
        self.clock = clock
        self.nominal_s = turn_s
        self.turn_s = turn_s
        self.slow = 1.0           # an injected worn motor turns this many times slower
        self.jitter = jitter      # each turn differs from nominal by up to ± this fraction
        self.rng = rng or random.Random(0)
        self.marks = sorted(marks, key=lambda m: m[0])
        self.on_turn_end = on_turn_end
        self.angle = 0.0          # fraction of the current turn done
        self.running = False
        self.blocked = False      # a jam: the motor turns but the cam cannot
        self._since = 0.0
        self._timer: Timer | None = None
        self._next_mark = 0
        self._drawn = False       # this turn's time was drawn as the last turn ended
        self._fire = self._on_timer     # bound once: every mark's timer calls it

    @property
    def mid_turn(self) -> bool:
        """Past its first mark (off home) on a turn not yet completed."""
        return self._next_mark > 0

    def set_motor(self, on: bool) -> None:
        if on == self.running:
            return
        if on:
            if self.angle == 0.0 and not self._drawn:
                # A new turn: real motors never take exactly the same time twice.
                wobble = 1 + self.rng.uniform(-self.jitter, self.jitter)
                self.turn_s = self.nominal_s * self.slow * wobble
            # A turn drawn as the last one ended, stopped at home and started again in
            # that instant (an armed stop, then the next tile's turn), is that turn.
            self._drawn = False
            self.running = True
            self._since = self.clock.now()
            self._schedule()
        else:
            # _advance and _cancel, spelled out: at every stop of a head or a plate.
            if not self.blocked:
                now = self.clock.now()
                self.angle += (now - self._since) / self.turn_s
                self._since = now
            self.running = False
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def time_to_home(self) -> float | None:
        """Seconds until this turn ends at home, once its last mark is behind it (None
        before that, or stopped, or jammed)."""
        timer = self._timer
        if not self.running or self.blocked or timer is None or self._next_mark < len(self.marks):
            return None
        return max(0.0, getattr(timer, "when", self.clock.now()) - self.clock.now())

    def set_slow(self, factor: float) -> None:
        """A worn motor fitted or replaced: the rest of this turn goes at its speed."""
        self._advance()
        self._since = self.clock.now()
        self.turn_s *= factor / self.slow
        self.slow = factor
        self._schedule()

    def _advance(self) -> None:
        if self.running and not self.blocked:
            now = self.clock.now()
            self.angle += (now - self._since) / self.turn_s
            self._since = now

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def set_blocked(self, blocked: bool) -> None:
        """A jam: the motor may run, the cam does not move until it is cleared."""
        if blocked == self.blocked:
            return
        self._advance()
        self.blocked = blocked
        self._since = self.clock.now()
        if blocked:
            self._cancel()
        else:
            self._schedule()

    def turn_by_hand(self, fraction: float) -> None:
        """Turned on by `fraction` of a turn without its motor (moved by hand, or a
        coast past home): the marks passed happen, as they would under the motor."""
        self._advance()
        self._since = self.clock.now()
        self.angle += fraction
        while self._next_mark < len(self.marks) and self.angle >= self.marks[self._next_mark][0]:
            callback = self.marks[self._next_mark][1]
            self._next_mark += 1
            callback()
        self._schedule()

    def home_by_hand(self) -> None:
        """A technician turns the cam back to home, its motor off."""
        self._cancel()
        self.running = False
        self.angle = 0.0
        self._next_mark = 0
        self.on_turn_end()

    # _schedule and _on_timer run for every mark of every turn: _cancel and _advance
    # spelled out, and the next mark's timer set by _on_timer itself, with the `now`
    # it already read (the time of an event does not move while it runs).
    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.running or self.blocked:
            return
        target = self.marks[self._next_mark][0] if self._next_mark < len(self.marks) else 1.0
        self._timer = self.clock.call_later((target - self.angle) * self.turn_s, self._fire)

    def _on_timer(self) -> None:
        self._timer = None
        clock = self.clock
        now = clock.now()
        if self.running and not self.blocked:
            self.angle += (now - self._since) / self.turn_s
            self._since = now
        marks = self.marks
        # Keep any overshoot (a late timer on a real clock): the cam turned that far.
        if self._next_mark < len(marks):
            mark, callback = marks[self._next_mark]
            if mark > self.angle:
                self.angle = mark
            self._next_mark += 1
            callback()
        else:
            self.angle = max(0.0, self.angle - 1.0)
            self._next_mark = 0
            wobble = 1 + self.rng.uniform(-self.jitter, self.jitter)
            self.turn_s = self.nominal_s * self.slow * wobble
            self._drawn = True
            self.on_turn_end()
        # _schedule, with the same `now`: what the callback did to the cam (stopped it,
        # or started it and set a timer) is read after it.
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.running or self.blocked:
            return
        target = marks[self._next_mark][0] if self._next_mark < len(marks) else 1.0
        delay = (target - self.angle) * self.turn_s
        self._timer = clock.call_at(now + (delay if delay > 0.0 else 0.0), self._fire)


class Travel:
    """A position from 0.0 (lower stop) to 1.0 (upper stop)."""

    def __init__(self, clock: Clock, travel_s: float,
                 on_change: Callable[[float], None],
                 jitter: float = 0.0, rng: random.Random | None = None) -> None:
        self.clock = clock
        self.nominal_s = travel_s
        self.travel_s = travel_s
        self.slow = 1.0
        self.jitter = jitter
        self.rng = rng or random.Random(0)
        self.on_change = on_change
        self.position = 0.0
        self.direction = 0        # +1 up, -1 down, 0 stopped
        self.blocked_below = -1.0  # an obstruction: cannot go lower than this
        self._since = 0.0
        self._timer: Timer | None = None

    def _advance(self) -> None:
        if self.direction:
            moved = (self.clock.now() - self._since) / self.travel_s * self.direction
            new = self.position + moved
            # An obstruction stops the lid coming down onto it, never one already below.
            if self.direction < 0 and self.position >= self.blocked_below:
                new = max(new, self.blocked_below)
            self.position = min(1.0, max(0.0, new))
            self._since = self.clock.now()

    def time_to_stop(self) -> float | None:
        """Seconds until the stop it drives towards, once it has left the other one
        (None before that, stopped, or coming down onto an obstruction)."""
        if not self.direction or self._timer is None:
            return None
        at = self.position + (self.clock.now() - self._since) / self.travel_s * self.direction
        if self.direction > 0:
            return (1.0 - at) * self.travel_s if at >= LEAVE_STOP else None
        if self.blocked_below >= 0 or at > 1.0 - LEAVE_STOP:
            return None
        return at * self.travel_s

    def set_slow(self, factor: float) -> None:
        """A worn motor fitted or replaced: the rest of this travel goes at its speed."""
        self._advance()
        self.travel_s *= factor / self.slow
        self.slow = factor
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._schedule()

    def drive(self, direction: int) -> None:
        self._advance()
        if direction and direction != self.direction:
            wobble = 1 + self.rng.uniform(-self.jitter, self.jitter)
            self.travel_s = self.nominal_s * self.slow * wobble
        self.direction = direction
        self._since = self.clock.now()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._schedule()
        self.on_change(self.position)

    def _schedule(self) -> None:
        # Wake at the next point a sensor could change: leaving a stop or reaching one.
        if self.direction == 0:
            return
        edge = LEAVE_STOP
        if self.direction > 0:
            targets = [edge, 1.0]
        elif self.position >= self.blocked_below:
            # Coming down onto an obstruction: it stops there, the lower stop is out of
            # reach (a timer for it would put the lid there: _on_timer).
            targets = [1.0 - edge, max(0.0, self.blocked_below)]
        else:
            targets = [1.0 - edge, 0.0]
        ahead = [t for t in targets if (t - self.position) * self.direction > 1e-9]
        if not ahead:
            return
        target = min(ahead, key=lambda t: abs(t - self.position))
        delay = abs(target - self.position) * self.travel_s
        self._timer = self.clock.call_later(delay, lambda: self._on_timer(target))

    def _on_timer(self, target: float) -> None:
        self._timer = None
        self._advance()
        # The timer was set for `target`: it is there. Time far from zero has coarse
        # floats (2**23 s, 97 days of running, makes `now - since` err by ~2 ns), so the
        # arithmetic alone could leave the lid a hair short of its stop for ever. Keep
        # any overshoot (a late timer on a real clock), as the cam does.
        self.position = max(self.position, target) if self.direction > 0 \
            else min(self.position, target)
        self.on_change(self.position)
        self._schedule()
