"""The centre lid: rise to open the drop hole, lower to close it (MECHANICS.md §3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.machine import attach
from hal.signals import LID_DOWN, LID_OFF, LID_UP

if TYPE_CHECKING:
    from firmware.controller import Controller

STATES = ["unknown", "opening", "open", "closing", "closed", "fault"]
INITIAL = "unknown"
TRANSITIONS = [
    {"trigger": "open", "source": ["closed", "closing"], "dest": "opening"},
    {"trigger": "close", "source": ["unknown", "open", "opening"], "dest": "closing"},
    {"trigger": "reached_upper", "source": "opening", "dest": "open"},
    {"trigger": "reached_lower", "source": "closing", "dest": "closed"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "unknown"},
]


class Lid:
    def __init__(self, ctl: Controller) -> None:
        self.ctl = ctl
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ctl.on_machine_error)

    def _expect(self, sensor: str, fault_id: str) -> None:
        limit = self.ctl.timing.lid_travel_s * self.ctl.timing.timeout_factor
        self.ctl.watch.expect("lid", limit, fault_id, "motor.lid",
                              {"sensor": sensor, "limit_s": limit})

    def on_enter_opening(self, *_: object) -> None:
        self.ctl.hal.write("motor.lid", LID_UP)
        self._expect("lid.upper", "lid.not_rising")

    def on_enter_closing(self, *_: object) -> None:
        if self.ctl.hal.read("lid.lower"):
            self.ctl.hal.write("motor.lid", LID_OFF)
            self.reached_lower()
            return
        self.ctl.hal.write("motor.lid", LID_DOWN)
        self._expect("lid.lower", "lid.not_lowering")

    def on_enter_open(self, *_: object) -> None:
        self.ctl.hal.write("motor.lid", LID_OFF)
        self.ctl.watch.done("lid")
        # The lid also moves for a technician's test; only the cycle's own moves count.
        if self.ctl.cycle.may_lid_opened():
            self.ctl.cycle.lid_opened()

    def on_enter_closed(self, *_: object) -> None:
        self.ctl.hal.write("motor.lid", LID_OFF)
        self.ctl.watch.done("lid")
        if self.ctl.cycle.may_lid_closed():
            self.ctl.cycle.lid_closed()

    def on_sensor(self, name: str, active: bool) -> None:
        if self.ctl.hal.read("lid.upper") and self.ctl.hal.read("lid.lower"):
            self.ctl.fault("lid.sensor_conflict", "lid", None,
                           {"lid.upper": True, "lid.lower": True})
            return
        if active and name == "lid.upper" and self.state == "opening":
            self.reached_upper()
        elif active and name == "lid.lower" and self.state == "closing":
            self.reached_lower()
