"""Input dispatch: every input change, from signal to the machine that answers it.

Every change arrives in `on_signal`, inside the loop; the watchers (a console's
self-test, the flight recorder) see it first, then the handler the table below names.
The keys are here too: a lift key waits a moment for the other (a top-up chord), and
a key whose mechanism a technician holds is ignored with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds.table import CASE_CONTACTS
from firmware.machines.cycle import CycleState
from mjtable_core.clock import Timer
from mjtable_core.signals import Value

# A changeover switch's two contacts move within a few ms of each other; disagreeing
# longer than this, one of them has failed.
CONTACTS_SETTLE_S = 0.05

if TYPE_CHECKING:
    from firmware.machines.build import Build
    from firmware.machines.cycle import Cycle
    from firmware.machines.dice import Dice
    from firmware.machines.lid import Lid
    from firmware.machines.owner import Owner
    from firmware.machines.plate import Plate
    from firmware.machines.ports import Ports
    from firmware.machines.side import SideBuilder

# A tile seen face up at a wall slot: (set, hand, slot), for the recurrence tracker.
FaceUpSeen = Callable[[Any, int, list[int]], Any]


class Inputs:
    def __init__(self, ports: Ports, *, lid: Lid, dice: Dice, sides: Sequence[SideBuilder],
                 plates: Sequence[Plate], build: Build, cycle: Cycle, owner: Owner,
                 faults: Sequence[Any], face_up_seen: FaceUpSeen,
                 lift_released: Callable[[], Any], refed_by_keys: Callable[[], bool]) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.timing = ports.timing
        self.emit = ports.emit
        self.fault = ports.fault
        self.marks = ports.marks
        self.lid, self.dice, self.sides, self.plates = lid, dice, sides, plates
        self.build, self.cycle, self.owner = build, cycle, owner
        self.faults = faults                    # the fault path's list, kept in place
        self.face_up_seen = face_up_seen        # diagnosis/recurrence.py
        # The refeed hold the players answer with the lift keys (faults/guided_refeed.py).
        self.lift_released = lift_released
        self.refed_by_keys = refed_by_keys
        for side in sides:
            side.on_face_up = self.tile_face_up
        # Input changes, for the console's self-tests; called before the machines react.
        self.watchers: list[Callable[[str, Value], None]] = []
        self._chord: Timer | None = None
        self._contacts_check: Timer | None = None   # a two-contact switch settling
        # The two contacts last agreed the case was open: one closing first is the
        # switch closing (the other still holds the interlock), not yet a fault.
        self._case_was_open = False
        self.handlers = self._dispatch_table()

    def on_signal(self, name: str, value: Value) -> None:
        for watcher in self.watchers:
            watcher(name, value)
        handler = self.handlers.get(name)
        if handler is not None:
            handler(value)

    def _dispatch_table(self) -> dict[str, Callable[[Value], None]]:
        lid, dice, build = self.lid, self.dice, self.build
        table: dict[str, Callable[[Value], None]] = {
            "lid.upper": lambda v: lid.on_sensor("lid.upper", bool(v)),
            "lid.lower": lambda v: lid.on_sensor("lid.lower", bool(v)),
            "dice.spin": lambda v: dice.on_sensor(bool(v)),
            "case_open": self._case_contact,
        }
        if "case_open_nc" in self.hal.signals:
            table["case_open_nc"] = self._case_contact
        for n, side in enumerate(self.sides):
            table[f"side.{n}.count"] = lambda v, s=side: s.on_count_edge(bool(v))
            table[f"side.{n}.head_home"] = lambda v, s=side: s.on_home_edge(bool(v))
            table[f"side.{n}.full"] = lambda v, s=side: build.on_belt(s, bool(v))
            table[f"side.{n}.plate_home"] = lambda v, p=self.plates[n]: self._plate_home(
                p, bool(v))
            table[f"side.{n}.tile_id"] = side.on_reader
            table[f"key.dice.{n}"] = lambda v, n=n: v and self._dice_key(n)
        for n in (0, 1):
            table[f"key.lift.{n}"] = lambda v, n=n: (
                self._lift_key(n) if v else self.lift_released())
        return table

    def tile_face_up(self, side: SideBuilder, index: int, tile: str | None) -> None:
        """A tile arrived face up: warn, and say whether it is one defective tile."""
        slot = [side.side, index // 2, 1 if index % 2 == 0 else 0]
        self.face_up_seen(self.build.set_name, self.cycle.number, slot)
        self.fault("tile.face_up", f"side.{side.side}.head", side.side,
                   {"sensor": f"side.{side.side}.face_up", "tile_index": index,
                    "wall_slot": slot, "set": self.build.set_name})

    def cancel_chord(self) -> None:
        """The shutdown path: a lift key waiting for its partner is forgotten."""
        if self._chord is not None:
            self._chord.cancel()
            self._chord = None

    def _plate_home(self, plate: Plate, home: bool) -> None:
        plate.on_sensor(home)
        if home and self.cycle.state == CycleState.HOMING:
            # It may be the last cam awaited: a glitch that hid it at the last check
            # leaves no other edge to end the homing.
            self.clock.post(self.cycle.check_homed)

    def _case_contact(self, value: object) -> None:
        """A contact of the case switch changed. With two (normally open and normally
        closed, on two inputs) they must agree: a disagreement is one contact failed
        (one stuck "closed" would silently defeat the interlock), and the table stops
        at once. The other contact following within the switch's travel is the case
        opened after all: `case.opened`, the disagreement withdrawn. Closing, one contact
        closes first while the other still reads open (the interlock holds): a fault
        only if the other has not followed when the travel is over."""
        hal = self.hal
        if "case_open_nc" not in hal.signals:
            if value:
                self._case_opened()
            return
        no, nc = bool(hal.read("case_open")), bool(hal.read("case_open_nc"))
        if no and nc:
            self._case_was_open = True
            self._withdraw_contacts()
            self._case_opened()
        elif no != nc:
            if not self._case_was_open:
                self._contacts_disagree(no, nc)
            if self._contacts_check is None:
                self._contacts_check = self.clock.call_later(CONTACTS_SETTLE_S,
                                                             self._contacts)
        elif self._case_was_open:
            # Both closed: the case shut. A disagreement on the way was its travel.
            self._case_was_open = False
            if self._contacts_check is not None:
                self._contacts_check.cancel()
                self._contacts_check = None

    def _contacts_disagree(self, no: bool, nc: bool) -> None:
        self.fault("case.contacts", "case", None, {"case_open": no, "case_open_nc": nc})

    def _contacts(self) -> None:
        """The switch's travel is over: contacts that still disagree are one failed
        (one that closed first and the other never followed, while the case shut)."""
        self._contacts_check = None
        no, nc = bool(self.hal.read("case_open")), bool(self.hal.read("case_open_nc"))
        if no != nc and not any(f.active and f.id == CASE_CONTACTS for f in self.faults):
            self._case_was_open = False
            self._contacts_disagree(no, nc)

    def _withdraw_contacts(self) -> None:
        """Both contacts open within the switch's travel: the disagreement raised at the
        first was the switch moving, not a contact failed."""
        if self._contacts_check is None:
            return
        self._contacts_check.cancel()
        self._contacts_check = None
        for fault in self.faults:
            if fault.active and fault.id == CASE_CONTACTS:
                fault.active = False
                self.emit("fault.cleared", id=fault.id, code=fault.code,
                              where=fault.where, by="case", superseded_by="case.opened")

    def _case_opened(self) -> None:
        # The tamper flag latches: a technician must inspect and clear it.
        if self.marks.service_mode:
            self.emit("case.opened.service")
            return
        self.marks.tampered = True
        self.fault("case.opened", "case_open", None, {"case_open": True})

    def _lift_key(self, n: int) -> None:
        cycle = self.cycle
        self.emit("key", key=f"key.lift.{n}")
        other_held = bool(self.hal.read(f"key.lift.{1 - n}"))
        if self._chord is not None or other_held:
            self.cancel_chord()
            if self._held("lift", ["lid"]):
                return
            if self.refed_by_keys():
                return      # the players say the held set was refed
            if cycle.may_both_lift_keys():
                cycle.both_lift_keys()
                return
            self._single_lift()
            return
        # Wait a moment: the other lift key may follow (a top-up).
        self._chord = self.clock.call_later(self.timing.key_chord_s, self._single_lift)

    def _held(self, key: str, mechanisms: list[str]) -> bool:
        """The cycle asks the owner first: a technician's motion holds the mechanism."""
        why = self.owner.refuses(mechanisms)
        if why is not None:
            self.emit("key.ignored", key=key, state=self.cycle.state, why=why)
        return why is not None

    def _single_lift(self) -> None:
        self._chord = None
        if self._held("lift", ["lid"]):
            return
        cycle = self.cycle
        if cycle.may_lift_key():
            cycle.lift_key()
        else:
            self.emit("key.ignored", key="lift", state=cycle.state)

    def _dice_key(self, seat: int) -> None:
        cycle = self.cycle
        self.emit("key", key=f"key.dice.{seat}")
        if self._held(f"dice.{seat}", ["dice"]):
            return
        if cycle.may_dice_key(seat=seat):
            cycle.dice_key(seat=seat)
        else:
            self.emit("key.ignored", key=f"dice.{seat}", state=cycle.state)
            cycle.show_last_throw()
