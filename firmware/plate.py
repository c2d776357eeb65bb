"""A wall lift plate: one cam revolution raises the staged wall flush with the table.

Its home sensor is checked for plausibility: home again sooner than the minimum
travel of a whole turn is a glitch, and the cam turns on (`supervisor.too_early`).
"""

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
    {"trigger": "rehome", "source": ["home", "fault"], "dest": "returning",
     "after": "_rehoming"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "home"},
]


class Plate:
    def __init__(self, ctl: Controller, side: int) -> None:
        self.ctl = ctl
        self.side = side
        self.motor = f"motor.side.{side}.plate"
        self.sensor = f"side.{side}.plate_home"
        self.left = False           # the cam was seen leaving home this turn
        self.glitches = 0           # home edges seen impossibly early
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ctl.on_machine_error)

    @property
    def key(self) -> str:
        return f"plate.{self.side}"

    def _supervise(self, whole: bool) -> None:
        self.ctl.hal.write(self.motor, True)
        self.ctl.supervisor.expect(
            self.key, self.sensor, "plate.stuck", f"side.{self.side}.plate", self.side,
            {"left_home": self.left}, moved=lambda: self.left, timed_stop=self.back_home,
            learn=whole)

    def on_enter_leaving(self, *_: object) -> None:
        if not self.ctl.hal.read(self.sensor):
            # Found off home (left there by a fault with the lid open): come round.
            self.left = True
            self._supervise(whole=False)
            self.left_home()
            return
        self.left = False
        self._supervise(whole=True)

    def _rehoming(self, *_: object) -> None:
        # Found off home: turn on until home; being off home is evidence it moved.
        self.left = not self.ctl.hal.read(self.sensor)
        self._supervise(whole=False)

    def on_enter_home(self, *_: object) -> None:
        self.ctl.hal.write(self.motor, False)
        self.ctl.supervisor.reached(self.key)
        self.ctl.cycle.plate_done(self)

    def on_sensor(self, home: bool) -> None:
        if not home:
            self.left = True
            if self.state == "leaving":
                self.left_home()
            elif self.state == "home" and self.ctl.cycle.state == "homing":
                self.rehome()   # coasted past home after it was stopped: come round again
        elif self.state == "returning":
            early = self.ctl.supervisor.too_early(self.key)
            if early is not None:
                self.glitches += 1
                self.ctl.emit("sensor.glitch", sensor=self.sensor, after_s=round(early, 4))
                return
            self.back_home()
