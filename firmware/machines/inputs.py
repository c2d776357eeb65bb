"""Input dispatch: every input change, from signal to the machine that answers it.

Every change arrives in `on_signal`, inside the loop; the watchers (a console's
self-test, the flight recorder) see it first, then the handler the table below names.
The keys are here too: a lift key waits a moment for the other (a top-up chord), and
a key whose mechanism a technician holds is ignored with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from firmware.machines.plate import Plate
from firmware.machines.side import SideBuilder
from mjtable_core.clock import Timer
from mjtable_core.signals import Value

# A changeover switch's two contacts move within a few ms of each other; disagreeing
# longer than this, one of them has failed.
CONTACTS_SETTLE_S = 0.05

if TYPE_CHECKING:
    from firmware.controller import Controller


class Inputs:
    def __init__(self, ctl: Controller) -> None:
        self.ctl = ctl
        # Input changes, for the console's self-tests; called before the machines react.
        self.watchers: list[Callable[[str, Value], None]] = []
        self._chord: Timer | None = None
        self._contacts_check: Timer | None = None   # a two-contact switch settling
        # The two contacts last agreed the case was open: one closing first is the
        # switch closing (the other still holds the interlock), not yet a fault.
        self._case_was_open = False
        # A HAL behind a link (ioboard) knows when an input really changed; an edge
        # retransmitted over a noisy cable arrives late, bunched with the next one.
        # Declared by the backend (hal/armed.py Capabilities), never probed.
        hal = ctl.hal
        self._changed_at: Callable[[str], float | None] | None = (
            hal.changed_at if hal.capabilities.board_time else None)
        self.handlers = self._dispatch_table()

    def edge_time(self, name: str) -> float:
        """When input `name` changed: the HAL's own time of the change, else now."""
        at = self._changed_at(name) if self._changed_at is not None else None
        return self.ctl.clock.now() if at is None else at

    def on_signal(self, name: str, value: Value) -> None:
        for watcher in self.watchers:
            watcher(name, value)
        handler = self.handlers.get(name)
        if handler is not None:
            handler(value)

    def _dispatch_table(self) -> dict[str, Callable[[Value], None]]:
        ctl = self.ctl
        table: dict[str, Callable[[Value], None]] = {
            "lid.upper": lambda v: ctl.lid.on_sensor("lid.upper", bool(v)),
            "lid.lower": lambda v: ctl.lid.on_sensor("lid.lower", bool(v)),
            "dice.spin": lambda v: ctl.dice.on_sensor(bool(v)),
            "case_open": self._case_contact,
        }
        if "case_open_nc" in ctl.hal.signals:
            table["case_open_nc"] = self._case_contact
        for n, side in enumerate(ctl.sides):
            table[f"side.{n}.count"] = lambda v, s=side: s.on_count_edge(bool(v))
            table[f"side.{n}.head_home"] = lambda v, s=side: s.on_home_edge(bool(v))
            table[f"side.{n}.full"] = lambda v, s=side: ctl.build.on_belt(s, bool(v))
            table[f"side.{n}.plate_home"] = lambda v, p=ctl.plates[n]: self._plate_home(
                p, bool(v))
            table[f"side.{n}.tile_id"] = side.on_reader
            table[f"key.dice.{n}"] = lambda v, n=n: v and self._dice_key(n)
        for n in (0, 1):
            table[f"key.lift.{n}"] = lambda v, n=n: (
                self._lift_key(n) if v else self.ctl.guided_refeed.key_released())
        return table

    def tile_face_up(self, side: SideBuilder, index: int, tile: str | None) -> None:
        """A tile arrived face up: warn, and say whether it is one defective tile."""
        ctl = self.ctl
        slot = [side.side, index // 2, 1 if index % 2 == 0 else 0]
        ctl.face_up.seen(ctl.build.set_name, ctl.cycle.number, slot)
        ctl.fault("tile.face_up", f"side.{side.side}.head", side.side,
                  {"sensor": f"side.{side.side}.face_up", "tile_index": index,
                   "wall_slot": slot, "set": ctl.build.set_name})

    def cancel_chord(self) -> None:
        """The shutdown path: a lift key waiting for its partner is forgotten."""
        if self._chord is not None:
            self._chord.cancel()
            self._chord = None

    def _plate_home(self, plate: Plate, home: bool) -> None:
        plate.on_sensor(home)
        if home and self.ctl.cycle.state == "homing":
            # It may be the last cam awaited: a glitch that hid it at the last check
            # leaves no other edge to end the homing.
            self.ctl.clock.post(self.ctl.cycle.check_homed)

    def _case_contact(self, value: object) -> None:
        """A contact of the case switch changed. With two (normally open and normally
        closed, on two inputs) they must agree: a disagreement is one contact failed
        (one stuck "closed" would silently defeat the interlock), and the table stops
        at once. The other contact following within the switch's travel is the case
        opened after all: `case.opened`, the disagreement withdrawn. Closing, one contact
        closes first while the other still reads open (the interlock holds): a fault
        only if the other has not followed when the travel is over."""
        ctl = self.ctl
        if "case_open_nc" not in ctl.hal.signals:
            if value:
                self._case_opened()
            return
        no, nc = bool(ctl.hal.read("case_open")), bool(ctl.hal.read("case_open_nc"))
        if no and nc:
            self._case_was_open = True
            self._withdraw_contacts()
            self._case_opened()
        elif no != nc:
            if not self._case_was_open:
                self._contacts_disagree(no, nc)
            if self._contacts_check is None:
                self._contacts_check = ctl.clock.call_later(CONTACTS_SETTLE_S,
                                                            self._contacts)
        elif self._case_was_open:
            # Both closed: the case shut. A disagreement on the way was its travel.
            self._case_was_open = False
            if self._contacts_check is not None:
                self._contacts_check.cancel()
                self._contacts_check = None

    def _contacts_disagree(self, no: bool, nc: bool) -> None:
        self.ctl.fault("case.contacts", "case", None, {"case_open": no, "case_open_nc": nc})

    def _contacts(self) -> None:
        """The switch's travel is over: contacts that still disagree are one failed
        (one that closed first and the other never followed, while the case shut)."""
        self._contacts_check = None
        ctl = self.ctl
        no, nc = bool(ctl.hal.read("case_open")), bool(ctl.hal.read("case_open_nc"))
        if no != nc and not any(f.active and f.id == "case.contacts" for f in ctl.faults):
            self._case_was_open = False
            self._contacts_disagree(no, nc)

    def _withdraw_contacts(self) -> None:
        """Both contacts open within the switch's travel: the disagreement raised at the
        first was the switch moving, not a contact failed."""
        if self._contacts_check is None:
            return
        self._contacts_check.cancel()
        self._contacts_check = None
        for fault in self.ctl.faults:
            if fault.active and fault.id == "case.contacts":
                fault.active = False
                self.ctl.emit("fault.cleared", id=fault.id, code=fault.code,
                              where=fault.where, by="case", superseded_by="case.opened")

    def _case_opened(self) -> None:
        # The tamper flag latches: a technician must inspect and clear it.
        ctl = self.ctl
        if ctl.service_mode:
            ctl.emit("case.opened.service")
            return
        ctl.tampered = True
        ctl.fault("case.opened", "case_open", None, {"case_open": True})

    def _lift_key(self, n: int) -> None:
        ctl = self.ctl
        ctl.emit("key", key=f"key.lift.{n}")
        other_held = bool(ctl.hal.read(f"key.lift.{1 - n}"))
        if self._chord is not None or other_held:
            self.cancel_chord()
            if self._held("lift", ["lid"]):
                return
            if ctl.guided_refeed.both_keys():
                return      # the players say the held set was refed
            if ctl.cycle.may_both_lift_keys():
                ctl.cycle.both_lift_keys()
                return
            self._single_lift()
            return
        # Wait a moment: the other lift key may follow (a top-up).
        self._chord = ctl.clock.call_later(ctl.timing.key_chord_s, self._single_lift)

    def _held(self, key: str, mechanisms: list[str]) -> bool:
        """The cycle asks the owner first: a technician's motion holds the mechanism."""
        why = self.ctl.owner.refuses(mechanisms)
        if why is not None:
            self.ctl.emit("key.ignored", key=key, state=self.ctl.cycle.state, why=why)
        return why is not None

    def _single_lift(self) -> None:
        self._chord = None
        if self._held("lift", ["lid"]):
            return
        cycle = self.ctl.cycle
        if cycle.may_lift_key():
            cycle.lift_key()
        else:
            self.ctl.emit("key.ignored", key="lift", state=cycle.state)

    def _dice_key(self, seat: int) -> None:
        ctl = self.ctl
        ctl.emit("key", key=f"key.dice.{seat}")
        if self._held(f"dice.{seat}", ["dice"]):
            return
        if ctl.cycle.may_dice_key(seat=seat):
            ctl.cycle.dice_key(seat=seat)
        else:
            ctl.emit("key.ignored", key=f"dice.{seat}", state=ctl.cycle.state)
