"""The controller: one loop, every state machine, the fault path.

Every input change arrives in `on_signal`, inside the loop. Nothing else touches
controller state. The fault path makes outputs safe before anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transitions import EventData

from firmware.build import Build
from firmware.clock import Clock, Timer
from firmware.config import Config
from firmware.cycle import Cycle
from firmware.dice import Dice
from firmware.faults import CATALOGUE, ERROR, Fault
from firmware.handoff import Handoff
from firmware.lid import Lid
from firmware.plate import Plate
from firmware.side import SideBuilder
from firmware.watch import Watch
from hal.interface import Hal
from hal.signals import Value

Event = dict[str, Any]
Subscriber = Callable[[Event], None]


class Controller:
    def __init__(self, config: Config, hal: Hal, clock: Clock) -> None:
        self.config = config
        self.timing = config.timing
        self.hal = hal
        self.clock = clock
        self.subscribers: list[Subscriber] = []
        self.faults: list[Fault] = []
        self.watch = Watch(clock, self.fault)
        self.handoff = Handoff(self)
        self.lid = Lid(self)
        self.sides = [SideBuilder(self, n) for n in range(4)]
        self.plates = [Plate(self, n) for n in range(4)]
        self.dice = Dice(self)
        self.build = Build(self)
        self.cycle = Cycle(self)
        self._chord: Timer | None = None
        # Input changes, for the console's self-tests; called before the machines react.
        self.input_watchers: list[Callable[[str, Value], None]] = []
        self.estopped = False
        self.service_mode = False
        self._handlers = self._dispatch_table()
        hal.listen(self.on_signal)

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        """Power-on: everything safe, then re-home every mechanism by its sensor."""
        self.hal.safe_state()
        self.emit("start", table=self.config.table.id)
        self.lid.close()
        for side in self.sides:
            if not self.hal.read(f"side.{side.side}.head_home"):
                side.rehome()
        for plate in self.plates:
            if not self.hal.read(plate.sensor):
                plate.rehome()
        self.cycle.check_homed()

    def stop(self) -> None:
        """A clean stop: every motor off, no timer left to move anything."""
        self.watch.cancel_all()
        self.hal.safe_state()
        self.emit("stop")

    # -- events -----------------------------------------------------------------------

    def emit(self, kind: str, **data: Any) -> None:
        event = {"t": round(self.clock.now(), 3), "kind": kind, **data}
        for subscriber in self.subscribers:
            subscriber(event)

    # -- faults -----------------------------------------------------------------------

    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault:
        """Raise a fault. Errors make every output safe first, then stop the work."""
        kind = CATALOGUE[fault_id]
        if kind.severity == ERROR:
            self.hal.safe_state()
            self.watch.cancel_all()
        fault = Fault(fault_id, where, side, self.cycle.number, self.clock.now(), evidence)
        self.faults.append(fault)
        if kind.severity == ERROR:
            self.hal.write("display", fault.code)
            self.hal.write("lamp.building", False)
            for machine in (self.cycle, self.build, self.lid, self.dice, *self.sides,
                            *self.plates):
                machine.fail()
        self.emit("fault", **fault.as_dict())
        return fault

    def on_machine_error(self, event: EventData) -> None:
        """A bug in a callback: safe outputs first, then let it surface."""
        self.hal.safe_state()
        self.watch.cancel_all()
        self.emit("software.error", error=repr(event.error), machine=type(event.model).__name__)
        raise event.error  # type: ignore[misc]

    # -- inputs -----------------------------------------------------------------------

    def on_signal(self, name: str, value: Value) -> None:
        for watcher in self.input_watchers:
            watcher(name, value)
        handler = self._handlers.get(name)
        if handler is not None:
            handler(value)

    def _dispatch_table(self) -> dict[str, Callable[[Value], None]]:
        table: dict[str, Callable[[Value], None]] = {
            "lid.upper": lambda v: self.lid.on_sensor("lid.upper", bool(v)),
            "lid.lower": lambda v: self.lid.on_sensor("lid.lower", bool(v)),
            "dice.spin": lambda v: self.dice.on_sensor(bool(v)),
        }
        for n, side in enumerate(self.sides):
            table[f"side.{n}.count"] = lambda v, s=side: v and self._tile_at_head(s)
            table[f"side.{n}.head_home"] = lambda v, s=side: v and s.on_home()
            table[f"side.{n}.full"] = lambda v: self.build.on_belt()
            table[f"side.{n}.plate_home"] = lambda v, p=self.plates[n]: p.on_sensor(bool(v))
            table[f"key.dice.{n}"] = lambda v, n=n: v and self._dice_key(n)
        for n in (0, 1):
            table[f"key.lift.{n}"] = lambda v, n=n: v and self._lift_key(n)
        return table

    def _tile_at_head(self, side: SideBuilder) -> None:
        if side.state not in ("feeding", "stacking"):
            self.emit("tile.unexpected", side=side.side, state=side.state)
            return
        face_up = f"side.{side.side}.face_up"
        if face_up in self.hal.signals and self.hal.read(face_up):
            self.fault("tile.face_up", f"side.{side.side}.head", side.side,
                       {"sensor": face_up, "tile_index": side.counted,
                        "tile": side.ctl.hal.read(side.reader) if side.has_reader else None})
        side.on_count()

    def _lift_key(self, n: int) -> None:
        self.emit("key", key=f"key.lift.{n}")
        other_held = bool(self.hal.read(f"key.lift.{1 - n}"))
        if self._chord is not None or other_held:
            if self._chord is not None:
                self._chord.cancel()
                self._chord = None
            if self.cycle.may_both_lift_keys():
                self.cycle.both_lift_keys()
                return
            self._single_lift()
            return
        # Wait a moment: the other lift key may follow (a top-up).
        self._chord = self.clock.call_later(self.timing.key_chord_s, self._single_lift)

    def _single_lift(self) -> None:
        self._chord = None
        if self.cycle.may_lift_key():
            self.cycle.lift_key()
        else:
            self.emit("key.ignored", key="lift", state=self.cycle.state)

    def _dice_key(self, seat: int) -> None:
        self.emit("key", key=f"key.dice.{seat}")
        if self.cycle.may_dice_key(seat=seat):
            self.cycle.dice_key(seat=seat)
        else:
            self.emit("key.ignored", key=f"dice.{seat}", state=self.cycle.state)

    # -- technician actions (console API, test mode) ------------------------------------

    def _machines(self) -> tuple[Any, ...]:
        return (self.cycle, self.build, self.lid, self.dice, *self.sides, *self.plates)

    def halt(self, reason: str) -> None:
        """Stop all work: outputs safe first, every machine parked in its fault state."""
        self.hal.safe_state()
        self.watch.cancel_all()
        if self._chord is not None:
            self._chord.cancel()
            self._chord = None
        self.hal.write("lamp.building", False)
        for machine in self._machines():
            machine.fail()
        self.emit("halted", reason=reason)

    def estop(self, by: str | None = None) -> None:
        """Emergency stop: everything off until a technician releases it."""
        self.halt("estop")
        self.estopped = True
        self.hal.write("display", "ES")
        self.emit("estop", by=by)

    def release_estop(self, by: str) -> None:
        self.estopped = False
        self.hal.write("display", "")
        self.emit("estop.released", by=by)

    def clear_fault(self, fault: Fault, by: str) -> None:
        """A technician says the cause of `fault` is dealt with."""
        fault.active = False
        self.emit("fault.cleared", id=fault.id, code=fault.code, where=fault.where, by=by)

    def may_rehome(self) -> bool:
        """No e-stop and no active error fault: the table may start again."""
        return not self.estopped and not any(
            f.active and f.kind.severity == ERROR for f in self.faults)

    def needs_rehome(self) -> bool:
        """Some machine was stopped by a fault or a halt and waits to go on."""
        return any(m.state == "fault" for m in self._machines())

    def rehome(self) -> None:
        """Start again after a halt: re-home every mechanism and build a fresh set.

        As after a power cut, a half-built set is never resumed (MECHANICS.md §3.10).
        """
        for machine in self._machines():
            if machine.state == "fault" and machine is not self.cycle:
                machine.reset()
        if self.cycle.state == "fault":
            # No trigger leaves the cycle's fault state: only a technician does, here.
            self.cycle.machine.set_state("homing", model=self.cycle)
        self.hal.write("display", "")
        self.emit("rehome")
        self.start()

    # -- views ------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle.number,
            "state": self.cycle.state,
            "build": self.build.state,
            "lid": self.lid.state,
            "sides": [{"state": s.state, "counted": s.counted, "stacked": s.stacked,
                       "target": s.target} for s in self.sides],
            "plates": [p.state for p in self.plates],
            "dice": {"state": self.dice.state, "faces": self.dice.faces},
            "set_in_play": self.cycle.set_in_play,
            "set_building": self.cycle.set_building,
            "dealer": self.cycle.dealer,
            "faults": [f.as_dict() for f in self.faults if f.active],
        }
