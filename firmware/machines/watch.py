"""Motion watchdogs: every commanded motion expects a sensor change within a limit.

The same pattern as a heater's plausibility check: a timer armed when the motor is
commanded, disarmed by the sensor edge; if it fires, the motion has failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mjtable_core.clock import Clock, Timer

OnMiss = Callable[[str, str, "int | None", dict[str, Any]], None]


@dataclass
class _Armed:
    timer: Timer
    started: float


class Watch:
    def __init__(self, clock: Clock, on_miss: OnMiss) -> None:
        self.clock = clock
        self.on_miss = on_miss
        self._armed: dict[str, _Armed] = {}
        self.last_duration: dict[str, float] = {}

    def expect(self, key: str, within_s: float, fault_id: str, where: str,
               evidence: dict[str, Any] | Callable[[], dict[str, Any]],
               side: int | None = None) -> None:
        """Arm (or re-arm) the watchdog `key`: `fault_id` unless `done(key)` in time.

        `evidence` may be a function: then it describes the moment the watchdog fires.
        """
        self.cancel(key)
        started = self.clock.now()

        def missed() -> None:
            self._armed.pop(key, None)
            waited = round(self.clock.now() - started, 3)
            facts = evidence() if callable(evidence) else evidence
            self.on_miss(fault_id, where, side, {**facts, "waited_s": waited})

        self._armed[key] = _Armed(self.clock.call_later(within_s, missed), started)

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
