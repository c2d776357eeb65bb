"""A motor that wears over simulated weeks: slower every day, until it stalls.

Friction grows and a motor turns slower; once the load is more than it can turn it
stalls, and the firmware sees a dead motor (a stop-fault). `MotorAging` slows a
simulated motor by `per_week` (compounded) for every `week_s` seconds of simulated
table time, updating its speed `STEPS_PER_WEEK` times a week, and kills it once it is
`stall_at` times slower than new. A week of use is a parameter, not a calendar week:
a soak compresses weeks into fewer hands (bench/faults/bench_wear.py).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds import CATALOGUE, ERROR
from mjtable_core.clock import Clock, Timer
from mjtable_core.config import Config
from simulator.harness.runner import Harness
from simulator.physics.table import SimTable
from simulator.scenario import Scenario

if TYPE_CHECKING:
    from simulator.harness.table import Driven

STEPS_PER_WEEK = 7


class MotorAging:
    def __init__(self, table: SimTable, clock: Clock, motor: str, *, per_week: float = 0.05,
                 week_s: float = 7 * 86400.0, stall_at: float = 1.6) -> None:
        if motor not in table.signals or not table.signals[motor].is_motor:
            raise ValueError(f"{motor!r} is not a motor of this table")
        if not (0 < per_week < 1 and week_s > 0 and stall_at > 1):
            raise ValueError("per_week must be in (0, 1), week_s above 0, stall_at above 1")
        self.table, self.clock, self.motor = table, clock, motor
        self.per_week, self.week_s, self.stall_at = per_week, week_s, stall_at
        self.started = clock.now()
        self.stalled_at: float | None = None
        self._timer: Timer | None = None

    @property
    def factor(self) -> float:
        """How many times slower than new the motor turns now."""
        weeks = (self.clock.now() - self.started) / self.week_s
        return math.pow(1 + self.per_week, weeks)

    def weeks_to_stall(self) -> float:
        return math.log(self.stall_at) / math.log(1 + self.per_week)

    def start(self) -> MotorAging:
        self._step()
        return self

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _step(self) -> None:
        factor = self.factor
        if factor >= self.stall_at:
            self.stalled_at = self.clock.now()
            self.table.kill_motor(self.motor)
            return
        self.table.slow_motor(self.motor, factor)
        self._timer = self.clock.call_later(self.week_s / STEPS_PER_WEEK, self._step)


def soak(config: Config, motor: str, side: int, *, seed: int, week_hands: float,
         stall_at: float, per_week: float = 0.05, hand_s: float = 60.0,
         max_hands: int = 2000) -> dict[str, Any]:
    """One long soak with `motor` ageing: when the table first warned about that part
    (side) and when it first stopped on a fault. `hand_s` is about how long a hand of
    this config takes in simulated time, so a week is about `week_hands` hands."""
    scenario = Scenario(seed=seed, cycles=max_hands, source="<soak>")
    harness = Harness(config, scenario, None)
    part = motor.split(".")[-1]
    seen: dict[str, Any] = {"hands": 0, "warned": None, "stopped": None}

    def watch(ctl: Driven) -> None:
        def on_event(event: dict[str, Any]) -> None:
            kind = event["kind"]
            if kind == "walls.committed":
                seen["hands"] += 1
            elif kind == "build.staged" and seen["warned"] is None:
                for warning in ctl.wear.warnings():
                    if warning.side == side and warning.measure.get(
                            "mechanism", "").startswith(part):
                        seen["warned"] = {"hand": seen["hands"], "t": event["t"],
                                          "factor": round(aging.factor, 3),
                                          "percent": warning.measure["percent"],
                                          "due_days": warning.due_days}
            elif kind == "fault" and CATALOGUE[event["id"]].severity == ERROR:
                seen["stopped"] = {"hand": seen["hands"], "t": event["t"], "id": event["id"],
                                   "where": event["where"], "factor": round(aging.factor, 3)}
                harness.clock.stop()
        ctl.subscribers.append(on_event)

    harness.boot_hooks.append(watch)
    aging = MotorAging(harness.table, harness.clock, motor, per_week=per_week,
                       week_s=week_hands * hand_s, stall_at=stall_at).start()
    harness.run()
    warned, stopped = seen["warned"], seen["stopped"]
    return {"seed": seed, "stall_at": stall_at, "warned": warned, "stopped": stopped,
            "hands": seen["hands"],
            "warned_first": warned is not None and (
                stopped is None or warned["t"] < stopped["t"])}
