"""`host_stall`: the host process freezes for `duration_s` (a GC pause, a blocked fsync,
a flood of API clients), now or just before a mechanism's next stop.

Just before a stop is the worst instant for a stop made by the host: the edge comes
while nobody listens. The table and the board go on (simulator/rigs/host_clock.py); what
the figures need is recorded per stall: where, when, and what the board did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulator.physics.table import SimTable
from simulator.rigs.host_clock import HostClock
from simulator.scenario import FaultSpec

LEAD_S = 0.002       # the stall begins this long before the stop's edge
POLL_S = 0.01        # how often to look whether the mechanism is on its way to its stop
WAIT_S = 120.0       # give up waiting for the stop after this long


@dataclass
class Stall:
    where: str
    duration_s: float
    start: float
    end: float
    # Whether the stop's sensor read its stop (and the motor off or dwelling there)
    # in the instant the host woke: False is a cam or the lid run past its stop.
    at_stop_on_waking: bool | None = None
    motor_on_waking: bool | None = None


@dataclass
class HostStalls:
    table: SimTable
    host: HostClock
    stalls: list[Stall] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)     # stops that never came

    def inject(self, spec: FaultSpec) -> None:
        if spec.where == "host":
            self._stall(spec)
        else:
            self._wait(spec, self.table.clock.now() + WAIT_S)

    def _wait(self, spec: FaultSpec, give_up_at: float) -> None:
        clock = self.table.clock
        eta = self.table.stop_eta(spec.where)
        if eta is not None and eta > LEAD_S / 2:
            clock.call_later(max(0.0, eta - LEAD_S), lambda: self._stall(spec))
        elif clock.now() >= give_up_at or not self.table.powered:
            self.missed.append(spec.where)
        else:
            clock.call_later(POLL_S, lambda: self._wait(spec, give_up_at))

    def _stall(self, spec: FaultSpec) -> None:
        clock = self.table.clock
        now = clock.now()
        stall = Stall(spec.where, spec.duration_s, now, now + spec.duration_s)
        self.stalls.append(stall)
        self.host.stall(spec.duration_s)
        if spec.where != "host":
            # Looked at a hair before the host's first deferred callback runs.
            clock.call_at(stall.end - 1e-6, lambda: self._look(stall))

    def _look(self, stall: Stall) -> None:
        sensor, motor = _stop_of(stall.where, self.table)
        stall.at_stop_on_waking = bool(self.table.values[sensor])
        value = self.table.values[motor]
        stall.motor_on_waking = bool(value) and value != "off"

    def report(self) -> list[dict[str, Any]]:
        return [vars(s).copy() for s in self.stalls]


def _stop_of(where: str, table: SimTable) -> tuple[str, str]:
    """The sensor a stop at `where` ends on, and its motor."""
    if where == "lid":
        sensor = "lid.upper" if table.lid.position >= 0.5 else "lid.lower"
        return sensor, "motor.lid"
    side, part = where.rsplit(".", 1)
    return f"{side}.{part}_home", f"motor.{side}.{part}"
