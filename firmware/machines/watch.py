"""Motion watchdogs: every commanded motion expects a sensor change within a limit.

The same pattern as a heater's plausibility check: a timer armed when the motor is
commanded, disarmed by the sensor edge; if it fires, the motion has failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from mjtable_core.clock import Clock, Timer

OnMiss = Callable[[str, str, "int | None", dict[str, Any]], None]
# Whether the board's link is in doubt (None) or lost (True): see Watch.
LinkDoubt = Callable[[], "bool | None"]
RECHECK_S = 0.05        # a watchdog due while the link is in doubt looks again this soon


Evidence = dict[str, Any] | Callable[[], dict[str, Any]]


@dataclass
class _Armed:
    timer: Timer
    started: float
    due: float
    # When `timer` fires: `due`, or earlier when armed again since (it then sets itself
    # for `due`).
    fires: float
    # The fault it raises if missed: set again, with the times, whenever it is armed.
    fault_id: str
    where: str
    side: int | None
    evidence: Evidence


class Watch:
    def __init__(self, clock: Clock, on_miss: OnMiss, link: LinkDoubt | None = None) -> None:
        self.clock = clock
        self.on_miss = on_miss
        # A board's link: False while heard, None in doubt, True declared lost. A host
        # that was silent (a stall) wakes to its watchdogs due while the board held
        # every motor: none is judged until the link is heard again (postpone()).
        self.link = link
        self._armed: dict[str, _Armed] = {}
        self.last_duration: dict[str, float] = {}

    def expect(self, key: str, within_s: float, fault_id: str, where: str,
               evidence: Evidence, side: int | None = None) -> None:
        """Arm (or re-arm) the watchdog `key`: `fault_id` unless `done(key)` in time.

        `evidence` may be a function: then it describes the moment the watchdog fires.
        """
        started = self.clock.now()
        due = started + (within_s if within_s > 0.0 else 0.0)  # call_later's own time
        armed = self._armed.get(key)
        if armed is not None and armed.fires <= due:
            # Armed again before its timer fires (the stall watch, at every tile): that
            # timer stays, and fired before the new limit it sets itself for it (_fire).
            # A timer made and cancelled per tile cost more than the rest of the watch.
            armed.started, armed.due = started, due
            armed.fault_id, armed.where, armed.side, armed.evidence = (
                fault_id, where, side, evidence)
            return
        self.cancel(key)
        self._armed[key] = _Armed(self.clock.call_later(within_s, partial(self._fire, key)),
                                  started, due, due, fault_id, where, side, evidence)

    def _fire(self, key: str) -> None:
        """`key`'s timer fired: the limit it was armed with last, or looks again then."""
        armed = self._armed.get(key)
        if armed is None:
            return
        if armed.fires < armed.due:
            armed.fires = armed.due
            armed.timer = self.clock.call_at(armed.due, partial(self._fire, key))
            return
        state = self.link() if self.link is not None else False
        if state is None:
            armed.fires = self.clock.now() + RECHECK_S
            armed.timer = self.clock.call_later(RECHECK_S, partial(self._fire, key))
            return
        del self._armed[key]
        if state:
            return          # link.lost is the one fault; the re-home judges anew
        waited = round(self.clock.now() - armed.started, 3)
        evidence = armed.evidence
        facts = evidence() if callable(evidence) else evidence
        self.on_miss(armed.fault_id, armed.where, armed.side, {**facts, "waited_s": waited})

    def postpone(self, by_s: float) -> None:
        """The board held every motor for `by_s` while the host was silent: every
        watchdog's limit moves on by as much (the motion it watches stood). One still
        overdue (the hold's length unknown: no stamp learned yet) has its whole limit
        again from now."""
        now = self.clock.now()
        for key, armed in self._armed.items():
            armed.timer.cancel()
            limit = armed.due - armed.started
            armed.due += by_s
            if armed.due <= now:
                armed.due = now + limit
            armed.fires = max(now, armed.due)
            armed.timer = self.clock.call_later(max(0.0, armed.due - now),
                                                partial(self._fire, key))

    def done(self, key: str) -> float | None:
        """Disarm `key`; returns how long the motion took."""
        armed = self._armed.pop(key, None)
        if armed is None:
            return None
        armed.timer.cancel()
        duration = self.clock.now() - armed.started
        self.last_duration[key] = duration
        return duration

    def cancel(self, key: str) -> None:
        armed = self._armed.pop(key, None)
        if armed is not None:
            armed.timer.cancel()

    def cancel_all(self) -> None:
        for key in list(self._armed):
            self.cancel(key)

    def armed(self) -> list[str]:
        return sorted(self._armed)
