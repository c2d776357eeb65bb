"""A wall lift plate: one cam revolution raises the staged wall flush with the table.

Its home sensor is checked for plausibility: home again sooner than the minimum
travel of a whole turn is a glitch, and the cam turns on (`supervisor.too_early`).
Every edge of it is believed only once it has stayed for CONFIRM_S (shorter than
the cam's home window, longer than a glitch): one that flips back sooner was a
glitch. A plate stopped on a glitch would leave its wall part raised; one that took a
glitch for leaving home would stop without turning; one turned round for a glitch at
rest would lift a wall nobody asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from firmware.machines.machine import Parkable, attach
from firmware.machines.protocols import noop
from firmware.machines.supervisor import CONFIRM_S
from mjtable_core.clock import Timer

if TYPE_CHECKING:
    from firmware.machines.ports import Ports



class PlateState(StrEnum):
    HOME = "home"
    LEAVING = "leaving"
    RETURNING = "returning"
    FAULT = "fault"


# Its cam commanded round (at home, or parked by a fault, it rests).
MOVING = frozenset({PlateState.LEAVING, PlateState.RETURNING})

STATES = [state.value for state in PlateState]
INITIAL = PlateState.HOME.value
TRANSITIONS = [
    {"trigger": "turn", "source": "home", "dest": "leaving"},
    {"trigger": "left_home", "source": "leaving", "dest": "returning"},
    {"trigger": "back_home", "source": "returning", "dest": "home"},
    {"trigger": "rehome", "source": ["home", "fault"], "dest": "returning",
     "after": "_rehoming"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "home"},
]


class Plate(Parkable):
    FAULT = PlateState.FAULT

    def __init__(self, ports: Ports, side: int) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.emit = ports.emit
        self.edge_time = ports.edge_time
        self.supervisor = ports.supervisor
        self.motions = ports.motions
        # Hooks: a turn ended at home (the cycle's), and at rest it settled off home
        # (off_home.py decides whether it may come round).
        self.came_home: Callable[[Plate], None] = noop
        self.found_off_home: Callable[[Plate], None] = noop
        self.side = side
        self.motor = f"motor.side.{side}.plate"
        self.sensor = f"side.{side}.plate_home"
        self.left = False           # the cam was seen leaving home this turn
        self.glitches = 0           # home edges seen impossibly early or too brief
        self._confirm: Timer | None = None
        self._edge_at = 0.0         # when the edge being confirmed happened
        self.stale = False          # parked off home: come round before the next turn
        self.round_first = False    # this motion is that coming round
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ports.on_error)

    @property
    def key(self) -> str:
        return f"plate.{self.side}"

    def status(self) -> dict[str, Any]:
        """This plate as the status picture shows it."""
        return {"state": self.state}

    @property
    def moving(self) -> bool:
        """Its cam commanded round (leaving or returning home)."""
        return self.state in MOVING

    def _supervise(self, whole: bool) -> None:
        # Stopped where the pin is, once home has held CONFIRM_S: the dwell is counted
        # there too, so a late loop cannot let the cam coast past home.
        self.motions.run(
            self.key, self.motor, True, self.sensor, True, "plate.stuck",
            where=f"side.{self.side}.plate", side=self.side, evidence={"left_home": self.left},
            moved=lambda: self.left, timed_stop=self.back_home, learn=whole,
            confirm_s=CONFIRM_S)

    def on_enter_leaving(self, *_: object) -> None:
        if self.stale or self.settled_off_home():
            # Off home (left so by a fault while the lid was up, or found so now): a
            # whole turn would never see the cam leave home and would take the home it
            # passes for a glitch. Come round to home first, then make the whole turn
            # this raise asks for (on_enter_home).
            self.stale = False
            self.round_first = True
            self.left = True
            self._supervise(whole=False)
            self.left_home()
            return
        self.left = False
        self._supervise(whole=True)

    def _rehoming(self, *_: object) -> None:
        # Found off home: turn on until home; being off home is evidence it moved.
        self.left = not self.hal.read(self.sensor)
        self.stale = False          # it is coming round to home now
        self._supervise(whole=False)

    def on_enter_home(self, *_: object) -> None:
        self.hal.write(self.motor, False)
        self.supervisor.reached(self.key)
        if self.round_first:
            self.round_first = False
            self.turn()             # now the whole turn that raises the wall
            return
        self.came_home(self)

    def on_enter_fault(self, *_: object) -> None:
        self.round_first = False
        if self._confirm is not None:
            self._confirm.cancel()
            self._confirm = None

    def _glitch(self, after_s: float) -> None:
        self.glitches += 1
        self.emit("sensor.glitch", sensor=self.sensor, after_s=round(after_s, 4))

    def settled_off_home(self) -> bool:
        """Off home, and not a glitch still being told apart (homing asks this)."""
        return self._confirm is None and not self.hal.read(self.sensor)

    def on_sensor(self, home: bool) -> None:
        """Every edge is believed only once it has stayed CONFIRM_S: one that flips back
        sooner is a glitch, whichever way it went. How long it stayed is taken from
        the edges' own times (the board's stamps over a link), so a real home left
        again because the stop arrived late is still a real home."""
        at = self.edge_time(self.sensor)
        if self._confirm is not None:
            self._confirm.cancel()
            self._confirm = None
            if at - self._edge_at < CONFIRM_S:
                self._glitch(self.supervisor.elapsed(self.key) or 0.0)
                return
            self._act(not home)         # it stayed long enough: it was real
        if home and self.state == PlateState.RETURNING:
            early = self.supervisor.too_early(self.key)
            if early is not None:
                self._glitch(early)
                return
        self._edge_at = at
        self._confirm = self.clock.call_later(CONFIRM_S, lambda: self._settled(home))

    def _settled(self, home: bool) -> None:
        self._confirm = None
        if bool(self.hal.read(self.sensor)) == home:
            self._act(home)

    def _act(self, home: bool) -> None:
        if not home:
            self.left = True
            if self.state == PlateState.LEAVING:
                self.left_home()
            elif self.state == PlateState.HOME:
                # At rest, yet off home: coasted past home, moved by hand, or a sensor
                # reading off home. Never left believed home (off_home.py decides).
                self.found_off_home(self)
        elif self.state == PlateState.RETURNING:
            self.back_home()
