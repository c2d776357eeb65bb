"""The centre lid: rise to open the drop hole, lower to close it (docs/mechanics.md).

Its stop sensors are checked for plausibility: a stop seen sooner than the minimum
travel after a whole move is a glitch and the lid goes on; a stop sensor that drops
back while the lid rests makes it drive to that stop again (a retry, supervised like
any move). When a stop was missed while the lid moved, that sensor is only a suspect:
the next move starting between the stops first travels to the other stop, and only if
that travel takes the whole learned time (the lid really was at the missed stop) is
the sensor declared failed (`supervisor.py`). A lid stopped short by an obstruction
comes back in a fraction of the time: it stays an obstruction. A move from between the
stops (resumed after a fault) may end at once, so no minimum travel tells a glitch from
its stop: that stop is believed once it has stayed CONFIRM_S, the motor still driving.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from firmware.machines.machine import Parkable, attach
from firmware.machines.protocols import noop
from firmware.machines.supervisor import CONFIRM_S
from mjtable_core.clock import Timer
from mjtable_core.signals import LID_DOWN, LID_OFF, LID_UP

if TYPE_CHECKING:
    from firmware.machines.owner import Owner
    from firmware.machines.ports import Ports



class LidState(StrEnum):
    UNKNOWN = "unknown"     # after a reset, until `settle` reads the stops
    OPENING = "opening"
    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"
    FAULT = "fault"


# Driven towards a stop.
MOVING = frozenset({LidState.OPENING, LidState.CLOSING})
# Where `close` may go from: not down, nor on its way down, nor parked by a fault.
NOT_CLOSED = frozenset({LidState.UNKNOWN, LidState.OPEN, LidState.OPENING})
# Each stop's sensor: the travel (supervisor's mechanism) and the state that end at it.
TOWARDS = {"lid.upper": ("lid.up", LidState.OPENING),
           "lid.lower": ("lid.down", LidState.CLOSING)}

STATES = [state.value for state in LidState]
INITIAL = LidState.UNKNOWN.value
TRANSITIONS = [
    {"trigger": "open", "source": ["closed", "closing", "unknown"], "dest": "opening"},
    {"trigger": "close", "source": ["unknown", "open", "opening"], "dest": "closing"},
    {"trigger": "reached_upper", "source": "opening", "dest": "open"},
    {"trigger": "reached_lower", "source": "closing", "dest": "closed"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "unknown"},
    # After a reset: take the state the sensors show.
    {"trigger": "settle", "source": "unknown", "dest": "closed", "conditions": "at_lower"},
    {"trigger": "settle", "source": "unknown", "dest": "open", "conditions": "at_upper"},
    {"trigger": "settle", "source": "unknown", "dest": None},
    # A stop sensor dropped back while the lid rested: drive to that stop again.
    {"trigger": "slipped", "source": "closed", "dest": "closing"},
    {"trigger": "slipped", "source": "open", "dest": "opening"},
]


class Lid(Parkable):
    FAULT = LidState.FAULT

    def __init__(self, ports: Ports, owner: Owner) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.emit = ports.emit
        self.fault = ports.fault
        self.edge_time = ports.edge_time
        self.supervisor = ports.supervisor
        self.motions = ports.motions
        self.owner = owner
        # Hooks the cycle sets (it is built after the lid): the lid reached its upper
        # stop, or its lower stop with the sensor read.
        self.on_open: Callable[[], None] = noop
        self.on_closed: Callable[[], None] = noop
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ports.on_error)
        self.then: str | None = None     # after a probing travel: "open" or "close"
        self.glitches = 0                # stop edges seen impossibly early or too brief
        self._confirm: Timer | None = None   # a part-length move's stop being confirmed
        self._confirming = ""                # ... on this sensor
        self._edge_at = 0.0

    def status(self) -> dict[str, Any]:
        """The lid as the status picture shows it."""
        return {"state": self.state}

    def at_lower(self, *_: object) -> bool:
        return bool(self.hal.read("lid.lower"))

    def at_upper(self, *_: object) -> bool:
        return bool(self.hal.read("lid.upper"))

    def down(self) -> bool:
        """At its lower stop, believed and read: the one permission for the feed (disc,
        ring, conveyors) and the plates, which must never run into the open hole."""
        return self.state == LidState.CLOSED and self.at_lower()

    @property
    def moving(self) -> bool:
        """Driven towards a stop (opening or closing)."""
        return self.state in MOVING

    def _between(self) -> bool:
        return not self.at_lower() and not self.at_upper()

    def on_enter_opening(self, *_: object) -> None:
        supervisor = self.supervisor
        if self.at_upper():
            self.reached_upper()
            return
        if self._between() and supervisor.is_suspect("lid.upper") and self.then is None:
            # Was it at the top with a failed sensor, or stopped short? Travel down first.
            self.then = "open"
            self.close()
            return
        whole = self.at_lower()
        self.motions.run(
            "lid.up", "motor.lid", LID_UP, "lid.upper", True, "lid.not_rising",
            moved=lambda: not self.hal.read("lid.lower"), timed_stop=self.reached_upper,
            learn=whole, confirms=None if whole else "lid.lower",
            confirm_s=0.0 if whole else CONFIRM_S)

    def on_enter_closing(self, *_: object) -> None:
        supervisor = self.supervisor
        if self.at_lower():
            self.reached_lower()
            return
        if self._between() and supervisor.is_suspect("lid.lower") and self.then is None:
            self.then = "close"
            self.open()
            return
        whole = self.at_upper()
        self.motions.run(
            "lid.down", "motor.lid", LID_DOWN, "lid.lower", True, "lid.not_lowering",
            moved=lambda: not self.hal.read("lid.upper"), timed_stop=self.reached_lower,
            learn=whole, confirms=None if whole else "lid.upper",
            confirm_s=0.0 if whole else CONFIRM_S)

    def on_enter_open(self, *_: object) -> None:
        self.hal.write("motor.lid", LID_OFF)
        self.supervisor.reached("lid.up")
        if self.then == "close":
            self.then = None
            self.close()
            return
        self.on_open()

    def on_enter_closed(self, *_: object) -> None:
        self.hal.write("motor.lid", LID_OFF)
        self.supervisor.reached("lid.down")
        if not self.at_lower():
            # The stop dropped back as the motor stopped (a pulse ending): it is driven
            # to again (`slipped`, queued). Closed it is not: nothing it guards may start.
            return
        if self.then == "open":
            self.then = None
            self.open()
            return
        self.on_closed()

    def on_enter_fault(self, *_: object) -> None:
        self.then = None
        self._cancel_confirm()

    def _cancel_confirm(self) -> bool:
        """Stop confirming a stop; True when one was being confirmed."""
        if self._confirm is None:
            return False
        self._confirm.cancel()
        self._confirm = None
        return True

    def _confirm_stop(self, name: str) -> None:
        """A part-length move's stop: believed once it has stayed CONFIRM_S."""
        self._cancel_confirm()
        self._confirming = name
        self._edge_at = self.edge_time(name)
        self._confirm = self.clock.call_later(CONFIRM_S, self._stop_stayed)

    def _stop_stayed(self) -> None:
        self._confirm = None
        name = self._confirming
        mechanism, moving = TOWARDS[name]
        if self.state == moving and self.hal.read(name):
            # The travel took until the edge, not until it was confirmed.
            self.supervisor.reached(mechanism, at=self._edge_at)
            if name == "lid.upper":
                self.reached_upper()
            else:
                self.reached_lower()

    def _guarded_running(self) -> list[str]:
        """The motors the lower lid stop guards that are commanded on now: the feed
        (disc, ring, conveyors) and the plate cams that raise the walls."""
        hal = self.hal
        # Behind a board, its interlock stopped them on this very edge and told us so
        # before the edge itself: they read off, yet they ran when the stop dropped.
        cut = hal.cut_by("lid.lower") if hal.capabilities.interlocks else ()
        return sorted(name for name, signal in hal.signals.items()
                      if signal.is_motor and name != "motor.lid" and name != "motor.dice"
                      and not name.endswith(".head")
                      and (hal.read(name) not in (signal.safe_value, None) or name in cut))

    def on_sensor(self, name: str, active: bool) -> None:
        if self.hal.read("lid.upper") and self.hal.read("lid.lower"):
            self.fault("lid.sensor_conflict", "lid", None,
                           {"lid.upper": True, "lid.lower": True,
                            "changed_last": name, "motor.lid": self.hal.read("motor.lid"),
                            # How far into a travel to that stop: too soon, it lied.
                            "travel_s": self.supervisor.elapsed(TOWARDS[name][0]),
                            "learned_s": round(self.supervisor.learned(TOWARDS[name][0]),
                                               3)})
            return
        if active:
            mechanism, moving = TOWARDS[name]
            if self.state != moving:
                return
            early = self.supervisor.too_early(mechanism)
            if early is not None:
                # Sooner than any lid can travel: a glitch, not the stop. Keep going.
                self.glitches += 1
                self.emit("sensor.glitch", sensor=name, after_s=round(early, 4))
                return
            if self.supervisor.part_length(mechanism):
                self._confirm_stop(name)
                return
            if name == "lid.upper":
                self.reached_upper()
            else:
                self.reached_lower()
        elif name == self._confirming and self._cancel_confirm():
            # Dropped back sooner than CONFIRM_S: a glitch, not the stop. Keep going.
            self.glitches += 1
            self.emit("sensor.glitch", sensor=name,
                          after_s=round(self.edge_time(name) - self._edge_at, 4))
        elif (name, self.state) in (("lid.lower", LidState.CLOSED),
                                    ("lid.upper", LidState.OPEN)) and (
                "lid" not in self.owner.held):
            # The stop it rests on dropped back: never believed as is, driven to again.
            self.emit("sensor.dropped", sensor=name, lid=self.state)
            guarded = self._guarded_running() if name == "lid.lower" else []
            if guarded:
                # The lower stop is the interlock of the feed and the walls: what it
                # guards may not run on while the lid is driven down again (the stop
                # believed may have been a pulse while the lid stood blocked part open).
                self.fault("lid.not_lowering", "motor.lid", None,
                               {"sensor": name, "dropped_while": guarded,
                                "suspect_sensor": name})
                return
            self.slipped()
