"""The controller: one loop, every state machine, the fault path.

Every input change arrives in `on_signal`, inside the loop. Nothing else touches
controller state. The fault path makes outputs safe before anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transitions import EventData

from firmware import recovery
from firmware.build import Build
from firmware.clock import Clock, Timer
from firmware.config import Config
from firmware.cycle import Cycle
from firmware.dice import Dice
from firmware.faults import CATALOGUE, ERROR, INFO, Fault
from firmware.handoff import Handoff
from firmware.journal import Journal, MemoryJournal
from firmware.lid import Lid
from firmware.plate import Plate
from firmware.recurrence import FaceUpTracker
from firmware.side import SideBuilder
from firmware.supervisor import Supervisor
from hal.interface import Hal
from hal.signals import Value

Event = dict[str, Any]
Subscriber = Callable[[Event], None]

# Faults whose safe state is the build's motors only: the lid, plates and dice are not
# involved, so players may finish the hand and top up missing tiles.
BUILD_SCOPE = {"head.jam", "count.double", "count.blind", "build.tiles_missing",
               "build.extra_tiles"}
# Events after which the journal is written.
JOURNALED = {"build.started", "build.staged", "handoff", "fault", "resume", "refeed",
             "walls.committed", "dice.thrown", "raising"}


class Controller:
    def __init__(self, config: Config, hal: Hal, clock: Clock,
                 journal: Journal | None = None) -> None:
        self.config = config
        self.timing = config.timing
        self.hal = hal
        self.clock = clock
        self.journal = journal if journal is not None else MemoryJournal()
        self.subscribers: list[Subscriber] = []
        self.faults: list[Fault] = []
        self.before_fault: dict[str, str] = {}
        self.supervisor = Supervisor(self)
        self.watch = self.supervisor.watch
        self.face_up = FaceUpTracker()
        self.tampered = False       # latched by case_open; only a technician clears it
        self.service_mode = False   # the case may be opened in service mode
        self.refeed_hold: Fault | None = None
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
        self.journal_read = False
        self._storage_error: str | None = None     # a journal write failed: fault pending
        self._handlers = self._dispatch_table()
        # A HAL behind a link (ioboard) knows when an input really changed; an edge
        # retransmitted over a noisy cable arrives late, bunched with the next one.
        self._changed_at: Callable[[str], float | None] | None = getattr(
            hal, "changed_at", None)
        hal.listen(self.on_signal)
        # A backend with a link of its own (ioboard) reports link.lost / link.version
        # into the fault path, from inside the loop, like any other fault.
        if hasattr(hal, "on_link_fault"):
            hal.on_link_fault = lambda fault_id, evidence: self.fault(
                fault_id, "link", None, evidence)

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        """Power-on: everything safe, then re-home every mechanism by its sensor."""
        self.hal.safe_state()
        self.emit("start", table=self.config.table.id)
        self._recover_journal()
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
        self.supervisor.cancel_all()
        self.hal.safe_state()
        self.emit("stop")
        self._save_journal(clean=True)

    def top_up_done(self) -> None:
        """Players topped up after tiles went missing: the build goes on."""
        for fault in self.faults:
            if fault.active and fault.id == "build.tiles_missing":
                self.clear_fault(fault, by="players (top-up)")
        if self.may_rehome():
            self.rehome()

    def after_homing(self) -> None:
        """Homed: build the set on the disc, unless a set is staged or must be refed."""
        if self.refeed_hold is not None:
            self.hal.write("display", "rF")
            return
        if self.build.state == "idle":
            self.build.start(set_name=self.cycle.set_building)

    def request_refeed(self, reason: str) -> None:
        """A set that cannot be trusted is built again from the start, never resumed."""
        self.emit("refeed", set=self.cycle.set_building, reason=reason)
        self.build.start(set_name=self.cycle.set_building)

    # -- journal ----------------------------------------------------------------------

    def _journal_state(self, clean: bool) -> dict[str, Any]:
        return {
            "clean": clean,
            "table": self.config.table.id,
            "cycle": self.cycle.number,
            "set_in_play": self.cycle.set_in_play,
            "set_building": self.cycle.set_building,
            "build": self.build.state,
            "staged_walls": self.build.walls if self.build.state == "staged" else None,
            "staged_set": self.build.set_name if self.build.state == "staged" else None,
            "timings": self.supervisor.export(),
            "faults": [{**f.as_dict(), "side": f.side} for f in self.faults[-50:]],
            "face_up": self.face_up.export(),
            "commitment": self.handoff.commitment,
            "tampered": self.tampered,
            # A hand being dealt survives a power cut: walls up, dice partly thrown.
            "deal": self.cycle.deal_state(),
            "raising": self.cycle.state == "raising",
            # Still waiting for the operator's refeed: a restart must hold again, or it
            # would build over the half-built set's tiles left in belts and heads.
            "refeed_pending": self.refeed_hold is not None,
        }

    def _save_journal(self, clean: bool = False) -> None:
        # Never before start() has read it: a fault raised earlier (the board's
        # handshake failing) would write a blank machine over the one to recover.
        if self.journal_read and not self._storage_failed():
            try:
                self.journal.save(self._journal_state(clean))
            except OSError as exc:
                # Never a silent stall inside emit: the fault path stops the table.
                # Saving is tried again once a technician clears the fault. Outputs go
                # safe now; the fault follows at once, outside the machine callback that
                # emitted (a fault inside it would leave that callback half done).
                self.hal.safe_state()
                self._storage_error = f"{type(exc).__name__}: {exc.strerror or exc}"
                self.clock.post(self._storage_fault)

    def _storage_failed(self) -> bool:
        return self._storage_error is not None or any(
            f.active and f.id == "storage.failed" for f in self.faults)

    def _storage_fault(self) -> None:
        error, self._storage_error = self._storage_error, None
        if error is not None:
            self.fault("storage.failed", "journal", None, {"error": error})

    def _recover_journal(self) -> None:
        saved = self.journal.load()
        self.journal_read = True
        if saved:
            self.supervisor.restore(saved.get("timings", {}))
            self.face_up.restore(saved.get("face_up", {}))
            self.cycle.number = int(saved.get("cycle", 0))
            self.cycle.set_in_play = saved.get("set_in_play")
            self.cycle.set_building = saved.get("set_building") or "A"
            self.tampered = bool(saved.get("tampered", False))
            # Fault history comes back as history: after re-homing, the sensors say
            # afresh what is still wrong.
            self.faults = [
                Fault(f["id"], f["where"], f.get("side"), f["cycle"], f["sim_time_s"],
                      f.get("evidence", {}), active=False)
                for f in saved.get("faults", []) if f.get("id") in CATALOGUE]
            if saved.get("staged_walls"):
                self.build.restore_staged(saved["staged_set"], saved["staged_walls"])
            if saved.get("deal"):
                self.cycle.restore_deal(saved["deal"])
            if saved.get("raising") and self.build.state == "staged":
                self.cycle.restore_raise()
            building = saved.get("build") in ("building", "paused_full", "paused_top_up",
                                              "sweeping") or bool(saved.get("refeed_pending"))
            evidence = {"build_in_progress": building, "set": saved.get("set_building"),
                        "cycle": saved.get("cycle")}
            if not saved.get("clean", False):
                fault = self.fault("power.recovered", "power", None, evidence)
            elif building:
                fault = self.fault("build.interrupted", "build", None, evidence)
            if building:
                # The half-built set is declared invalid: hold until it is refed.
                fault.active = True
                self.refeed_hold = fault
        self._save_journal(clean=False)

    # -- events -----------------------------------------------------------------------

    def emit(self, kind: str, **data: Any) -> None:
        event = {"t": round(self.clock.now(), 3), "kind": kind, **data}
        for subscriber in self.subscribers:
            subscriber(event)
        if kind in JOURNALED:
            self._save_journal()

    # -- faults -----------------------------------------------------------------------

    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault:
        """Raise a fault. An error turns the affected motors off before anything else."""
        kind = CATALOGUE[fault_id]
        error = kind.severity == ERROR
        build_only = fault_id in BUILD_SCOPE
        if error:
            if build_only:
                self.build.motors_off()
            else:
                self.hal.safe_state()
        fault = Fault(fault_id, where, side, self.cycle.number, self.clock.now(), evidence,
                      active=kind.severity != INFO)
        self.faults.append(fault)
        if error:
            recovery.remember(self)
            if fault_id in recovery.UNTRUSTED_COUNT and (
                    self.build.running or self.build.state == "sweeping"):
                self.build.untrusted = True
            if build_only:
                self.build.stop_supervision()
                stopped = [self.build, *self.sides]
            else:
                self.supervisor.cancel_all()
                if self._chord is not None:
                    self._chord.cancel()
                    self._chord = None
                stopped = [self.cycle, self.build, self.lid, self.dice, *self.sides,
                           *self.plates]
            self.hal.write("display", fault.code)
            self.hal.write("lamp.building", False)
            for machine in stopped:
                machine.fail()
        fault.diagnosis_extra = self.face_up.diagnose(fault, self)
        self.emit("fault", **fault.as_dict())
        return fault

    def on_machine_error(self, event: EventData) -> None:
        """A bug in a callback: safe outputs first, then let it surface."""
        self.hal.safe_state()
        self.supervisor.cancel_all()
        self.emit("software.error", error=repr(event.error), machine=type(event.model).__name__)
        raise event.error  # type: ignore[misc]

    # -- inputs -----------------------------------------------------------------------

    def edge_time(self, name: str) -> float:
        """When input `name` changed: the HAL's own time of the change, else now."""
        at = self._changed_at(name) if self._changed_at is not None else None
        return self.clock.now() if at is None else at

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
            "case_open": lambda v: v and self._case_opened(),
        }
        for n, side in enumerate(self.sides):
            table[f"side.{n}.count"] = lambda v, s=side: s.on_count_edge(bool(v))
            table[f"side.{n}.head_home"] = lambda v, s=side: s.on_home_edge(bool(v))
            table[f"side.{n}.full"] = lambda v, s=side: self.build.on_belt(s, bool(v))
            table[f"side.{n}.plate_home"] = lambda v, p=self.plates[n]: p.on_sensor(bool(v))
            table[f"key.dice.{n}"] = lambda v, n=n: v and self._dice_key(n)
        for n in (0, 1):
            table[f"key.lift.{n}"] = lambda v, n=n: v and self._lift_key(n)
        return table

    def tile_face_up(self, side: SideBuilder, index: int, tile: str | None) -> None:
        """A tile arrived face up: warn, and say whether it is one defective tile."""
        slot = [side.side, index // 2, 1 if index % 2 == 0 else 0]
        self.face_up.seen(self.build.set_name, self.cycle.number, tile, slot)
        self.fault("tile.face_up", f"side.{side.side}.head", side.side,
                   {"sensor": f"side.{side.side}.face_up", "tile": tile, "tile_index": index,
                    "wall_slot": slot, "set": self.build.set_name})

    def _case_opened(self) -> None:
        # The tamper flag latches: a technician must inspect and clear it.
        if self.service_mode:
            self.emit("case.opened.service")
            return
        self.tampered = True
        self.fault("case.opened", "case_open", None, {"case_open": True})

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
        self.supervisor.cancel_all()
        if self._chord is not None:
            self._chord.cancel()
            self._chord = None
        self.hal.write("lamp.building", False)
        recovery.remember(self)
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
        if fault is self.refeed_hold:
            # The operator has refed the set that was half built at the power cut.
            self.refeed_hold = None
            if self.cycle.state not in ("homing", "fault") and self.build.state == "idle":
                self.request_refeed("refed after an unclean stop")
        if fault.id == "case.opened":
            self.tampered = False

    def may_rehome(self) -> bool:
        """No e-stop and no active error fault: the table may start again."""
        return not self.estopped and not any(
            f.active and f.kind.severity == ERROR for f in self.faults)

    def needs_rehome(self) -> bool:
        """Some machine was stopped by a fault or a halt and waits to go on."""
        return bool(self.before_fault) or any(m.state == "fault" for m in self._machines())

    def rehome(self) -> None:
        """Go on after a halt: every mechanism re-reads its sensors and the interrupted
        motion is issued again (firmware/recovery.py). A set whose counts cannot be
        trusted is built again from the start, never resumed (docs/mechanics.md, step 10)."""
        self.emit("rehome")
        recovery.resume(self)

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
