"""The centre lid: rise to open the drop hole, lower to close it (docs/mechanics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.machine import attach
from hal.signals import LID_DOWN, LID_OFF, LID_UP

if TYPE_CHECKING:
    from firmware.controller import Controller

STATES = ["unknown", "opening", "open", "closing", "closed", "fault"]
INITIAL = "unknown"
TRANSITIONS = [
    {"trigger": "open", "source": ["closed", "closing", "unknown"], "dest": "opening"},
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

    def on_enter_opening(self, *_: object) -> None:
        if self.ctl.hal.read("lid.upper"):
            self.reached_upper()
            return
        whole = bool(self.ctl.hal.read("lid.lower"))
        self.ctl.hal.write("motor.lid", LID_UP)
        self.ctl.supervisor.expect(
            "lid.up", "lid.upper", "lid.not_rising", "motor.lid",
            moved=lambda: not self.ctl.hal.read("lid.lower"), timed_stop=self.reached_upper,
            learn=whole)

    def on_enter_closing(self, *_: object) -> None:
        if self.ctl.hal.read("lid.lower"):
            self.reached_lower()
            return
        whole = bool(self.ctl.hal.read("lid.upper"))
        self.ctl.hal.write("motor.lid", LID_DOWN)
        self.ctl.supervisor.expect(
            "lid.down", "lid.lower", "lid.not_lowering", "motor.lid",
            moved=lambda: not self.ctl.hal.read("lid.upper"), timed_stop=self.reached_lower,
            learn=whole)

    def on_enter_open(self, *_: object) -> None:
        self.ctl.hal.write("motor.lid", LID_OFF)
        self.ctl.supervisor.reached("lid.up")
        # The lid also moves for a technician's test; only the cycle's own moves count.
        if self.ctl.cycle.may_lid_opened():
            self.ctl.cycle.lid_opened()

    def on_enter_closed(self, *_: object) -> None:
        self.ctl.hal.write("motor.lid", LID_OFF)
        self.ctl.supervisor.reached("lid.down")
        if self.ctl.cycle.may_lid_closed():
            self.ctl.cycle.lid_closed()

    def settle(self) -> None:
        """Take the state the sensors show (after a fault is cleared)."""
        state = "closed" if self.ctl.hal.read("lid.lower") else (
            "open" if self.ctl.hal.read("lid.upper") else "unknown")
        self.machine.set_state(state, model=self)

    def on_sensor(self, name: str, active: bool) -> None:
        if self.ctl.hal.read("lid.upper") and self.ctl.hal.read("lid.lower"):
            self.ctl.fault("lid.sensor_conflict", "lid", None,
                           {"lid.upper": True, "lid.lower": True,
                            "changed_last": name, "motor.lid": self.ctl.hal.read("motor.lid")})
            return
        if active and name == "lid.upper" and self.state == "opening":
            self.reached_upper()
        elif active and name == "lid.lower" and self.state == "closing":
            self.reached_lower()
