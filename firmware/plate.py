"""A wall lift plate: one cam revolution raises the staged wall flush with the table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.machine import attach

if TYPE_CHECKING:
    from firmware.controller import Controller

STATES = ["home", "leaving", "returning", "fault"]
INITIAL = "home"
TRANSITIONS = [
    {"trigger": "turn", "source": "home", "dest": "leaving"},
    {"trigger": "left_home", "source": "leaving", "dest": "returning"},
    {"trigger": "back_home", "source": "returning", "dest": "home"},
    {"trigger": "rehome", "source": ["home", "fault"], "dest": "returning"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "home"},
]


class Plate:
    def __init__(self, ctl: Controller, side: int) -> None:
        self.ctl = ctl
        self.side = side
        self.motor = f"motor.side.{side}.plate"
        self.sensor = f"side.{side}.plate_home"
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ctl.on_machine_error)

    @property
    def key(self) -> str:
        return f"plate.{self.side}"

    def on_enter_leaving(self, *_: object) -> None:
        self.ctl.hal.write(self.motor, True)
        limit = self.ctl.timing.plate_turn_s * self.ctl.timing.timeout_factor
        self.ctl.watch.expect(self.key, limit, "plate.stuck", f"side.{self.side}.plate",
                              {"sensor": self.sensor, "expected": "leave home",
                               "limit_s": limit}, side=self.side)

    def on_enter_returning(self, *_: object) -> None:
        self.ctl.hal.write(self.motor, True)
        limit = self.ctl.timing.plate_turn_s * self.ctl.timing.timeout_factor
        self.ctl.watch.expect(self.key, limit, "plate.stuck", f"side.{self.side}.plate",
                              {"sensor": self.sensor, "expected": "return home",
                               "limit_s": limit}, side=self.side)

    def on_enter_home(self, *_: object) -> None:
        self.ctl.hal.write(self.motor, False)
        self.ctl.watch.done(self.key)
        self.ctl.cycle.plate_done()

    def on_sensor(self, home: bool) -> None:
        if not home and self.state == "leaving":
            self.left_home()
        elif home and self.state == "returning":
            self.back_home()
