"""The controller: one loop, every state machine, the fault path.

Every input change arrives in `on_signal`, inside the loop. Nothing else touches
controller state. The fault path makes outputs safe before anything else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from transitions import EventData
from transitions.core import MachineError

from firmware import recovery, relink, words
from firmware.build import Build
from firmware.causes import blind_cause
from firmware.cycle import Cycle
from firmware.dice import Dice
from firmware.differential import rank
from firmware.faults import CASE_CLOSED, CATALOGUE, ERROR, INFO, REFEED, RELINK, WARNING, Fault
from firmware.handoff import Handoff
from firmware.i18n import N_, _, table_language
from firmware.identify import SHOWN as IDENTIFY_SHOWN
from firmware.journal import Journal, MemoryJournal
from firmware.lid import Lid
from firmware.motion import Motions
from firmware.owner import Owner
from firmware.plate import Plate
from firmware.recorder import FlightRecorder
from firmware.recurrence import FaceUpTracker
from firmware.scoring import TableScore
from firmware.shutdown import BUILD, TABLE, LatchedOutputs, Shutdown
from firmware.side import SideBuilder
from firmware.supervisor import Supervisor
from firmware.wear import Wear
from hal.interface import Hal
from mjtable_core.clock import Clock, Timer
from mjtable_core.config import Config
from mjtable_core.geometry import Geometry
from mjtable_core.signals import Kind, Value

Event = dict[str, Any]
Subscriber = Callable[[Event], None]

# Shown while the booking gate holds the table: "En(able)".
GATE_DISPLAY = "En"

# Events after which the journal is written.
JOURNALED = {"build.started", "build.staged", "handoff", "fault", "resume", "refeed",
             "walls.committed", "dice.thrown", "raising", "fault.cleared"}
# The machines' part of the status picture the journal keeps as it is (recovery reads
# them back); the build's and cycle's states are journaled as recovery would restore
# them (recovery.journaled), which a fault's parking can make differ from the picture.
JOURNALED_STATUS = ("cycle", "set_in_play", "set_building")
# Fault history kept in memory and journal: every active fault, and this many recent
# others; `fault_counts` keeps how often each fault was raised since power-on.
FAULT_HISTORY = 100
# One cause (a fault kind at one place) raises at most this many faults per hour of
# table time; past it, its last fault comes back with its count and rate: a cause that
# keeps returning after each clear is one entry a technician reads, not a list.
CAUSE_FAULTS_PER_HOUR = 3
HOUR_S = 3600.0
# A build that was not complete at a stop: its stacks are not trusted after a restart.
NOT_INCOMPLETE = (None, "idle", "staged")


def build_mechanisms(geometry: Geometry) -> list[str]:
    """What a build drives: held by a technician, the next build waits."""
    return ["disc", *[f"{part}.{n}" for n in geometry.sides for part in ("head", "conveyor")]]


class ClearRefused(ValueError):
    """A fault may not be cleared yet; `str()` says what to do first."""


class Controller:
    def __init__(self, config: Config, hal: Hal, clock: Clock,
                 journal: Journal | None = None) -> None:
        self.config = config
        self.geometry = config.geometry
        self.timing = config.timing
        # Every write goes through the latch: after a shutdown nothing restarts a motor.
        self.outputs = LatchedOutputs(hal)
        self.hal = self.outputs
        self.shutdown = Shutdown(self.outputs)
        self.owner = Owner(self)
        self.outputs.owner = self.owner
        self.outputs.on_refused = lambda name, value: self.emit(
            "motor.refused", signal=name, value=value, latched=sorted(self.outputs.scopes))
        self.clock = clock
        self.journal = journal if journal is not None else MemoryJournal()
        self.subscribers: list[Subscriber] = []
        self.faults: list[Fault] = []
        self.fault_counts: Counter[str] = Counter()
        # Where the machines stopped by a halt (not a fault) were: see recovery.py.
        self.halt_parked: dict[str, str] = {}
        # While a resume runs: where it puts the machines back (journaled meanwhile).
        self.resume_plan: dict[str, str] = {}
        self._in_machine_error = False
        self.supervisor = Supervisor(self)
        self.watch = self.supervisor.watch
        self.face_up = FaceUpTracker(self.geometry.side_count)
        self.tampered = False       # latched by case_open; only a technician clears it
        self.service_mode = False   # the case may be opened in service mode
        self.halted_by: str | None = None  # while a halt parks the machines (events)
        self.refeed_hold: Fault | None = None
        self.handoff = Handoff(self)
        self.scoring = TableScore(self)     # the game's scores and the next dealer
        self.motions = Motions(self)
        self.lid = Lid(self)
        self.sides = [SideBuilder(self, n) for n in self.geometry.sides]
        self.plates = [Plate(self, n) for n in self.geometry.sides]
        self.dice = Dice(self)
        self.build = Build(self)
        self.cycle = Cycle(self)
        self._chord: Timer | None = None
        # Input changes, for the console's self-tests; called before the machines react.
        self.input_watchers: list[Callable[[str, Value], None]] = []
        self.estopped = False
        # The booking gate (firmware/gate.py): why no new hand may start, or None.
        self.gate_closed: Callable[[], str | None] = lambda: None
        self.journal_read = False
        self._storage_error: str | None = None     # a journal write failed: fault pending
        self._handlers = self._dispatch_table()
        # A HAL behind a link (ioboard) knows when an input really changed; an edge
        # retransmitted over a noisy cable arrives late, bunched with the next one.
        # Declared by the backend (hal/armed.py Capabilities), never probed.
        self._changed_at: Callable[[str], float | None] | None = (
            hal.changed_at if hal.capabilities.board_time else None)
        hal.listen(self.on_signal)
        # A backend with a link of its own (ioboard) reports link.lost / link.version
        # into the fault path, from inside the loop, like any other fault.
        if hal.capabilities.link:
            hal.on_link_fault = lambda fault_id, evidence: relink.link_fault(
                self, fault_id, evidence)
            hal.on_link_back = lambda: relink.link_back(self)
        # The edges and commands before each fault, logged with it (replayable).
        self.recorder = FlightRecorder(self)
        self.wear = Wear(self)      # trends before a part fails (journaled)

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        """Power-on: everything safe, then re-home every mechanism by its sensor.

        Error faults still active at the last stop come back active: the table then
        stays stopped, latched, until a technician clears them."""
        self.hal.safe_state()
        self.emit("start", table=self.config.table.id)
        self._recover_journal()
        held = [f for f in self.faults if f.active and f.kind.severity == ERROR]
        if held:
            self._shut_down(TABLE, held[-1])
            return
        self.home()

    def home(self) -> None:
        """Bring every mechanism to its home sensor; the cycle is homed when all are.

        The lid first: a plate found off home turns only once the lid is down
        (`Cycle.check_homed`), or it would lift a wall into an open hole."""
        if self.lid.state in ("unknown", "open", "opening"):
            self.lid.close()
        for side in self.sides:
            if not self.hal.read(f"side.{side.side}.head_home") and side.state == "idle":
                side.rehome()
        self.cycle.check_homed()

    def rehome_plates(self) -> None:
        """Turn round every plate found off home; only with the lid at its lower stop,
        and only where a turn lifts nothing (`plate_turn_refused`): else plate.stuck."""
        if self.lid.state != "closed":
            return
        for plate in self.plates:
            if plate.settled_off_home() and plate.state in ("home", "fault"):
                if self.plate_turn_refused() is None:
                    plate.rehome()
                else:
                    # Outside the machine callback that asked (homing): see save_journal.
                    self.clock.post(lambda p=plate: self._off_home_fault(p))

    def plate_turn_refused(self) -> str | None:
        """Why a plate found off home may not be turned round now, or None.

        One turn lifts whatever stands on its track. During a raise (or one still to
        finish after a restart) that is the staged wall it was lifting. Otherwise a
        plate should be at home: its track may hold stacks of the set staged or being
        built (or left by a build a refeed must empty), and the hand in play stands on
        the table, so a turn would lift those stacks onto it. A plate that moved by
        hand, or a home sensor that reads off home at rest, is a technician's job."""
        states = recovery.journaled(self)       # parked machines: where they were
        if self.cycle.raise_in_progress(states["cycle"]):
            return None
        if states["build"] == "idle" and self.refeed_hold is None:
            return None         # nothing stacked since the last raise
        return N_("its track may hold stacks: a turn would lift them onto the table")

    def _off_home_fault(self, plate: Plate) -> None:
        if self.cycle.state != "homing" or not plate.settled_off_home():
            return
        why = self.plate_turn_refused()
        if why is None:
            return
        self._found_off_home(plate, why)

    def _found_off_home(self, plate: Plate, why: str) -> None:
        self.fault("plate.stuck", f"side.{plate.side}.plate", plate.side,
                   {"sensor": plate.sensor, "found_off_home": True, "raising": False,
                    "cycle_state": self.cycle.state, "why": why})

    def plate_off_home(self, plate: Plate) -> None:
        """A plate at rest (its machine home) settled off home: the cam coasted past
        home after it was stopped, was moved by hand, or its sensor reads off home.

        Never believed home: a raise would start a whole turn that never sees the cam
        leave home, and walls would be committed over a plate mid-turn. Homing brings
        it round (`check_homed`). Elsewhere it comes round now where a turn lifts
        nothing and the lid is down; with the lid up it comes round first at the next
        raise (`stale`); where its track may hold stacks it is plate.stuck, as at
        homing: a technician's job, never a turn that lifts them onto the table."""
        if self.owner.refuses([plate.key]) is not None:
            return          # a technician's jog or test moves it
        if self.cycle.state == "homing":
            self.cycle.check_homed()
            return
        why = self.plate_turn_refused()
        if why is not None:
            self._found_off_home(plate, why)
        elif self.lid.state == "closed":
            plate.rehome()
        else:
            plate.stale = True

    def check_plates_at_rest(self) -> None:
        """After a resume: a plate put back home while it still reads off home is
        judged as if just found so (a clear without a fix is refused again)."""
        for plate in self.plates:
            if plate.state == "home" and plate.settled_off_home():
                self.plate_off_home(plate)

    def stop(self) -> None:
        """A clean stop, through the shutdown path: every output safe and latched, no
        supervision left. The machines keep their states for the journal."""
        self.shutdown.invoke(TABLE, self.hal.safe_state, self.supervisor.cancel_all)
        self.emit("stop")
        self.save_journal(clean=True)

    def top_up_done(self) -> None:
        """Players topped up after tiles went missing: the build goes on."""
        for fault in self.faults:
            if fault.active and fault.id == "build.tiles_missing" and (
                    fault is not self.refeed_hold):
                self.clear_fault(fault, by="players (top-up)")
        if self.may_resume():
            self.resume_after_fault()

    def after_homing(self) -> None:
        """Homed (the result of the cycle's `homed` transition): build the set on the
        disc, unless a set is staged, must be refed, or a build fault holds the build."""
        if self.refeed_hold is not None:
            self.hal.write("display", "rF")
            return
        if self.cycle.faces_display():
            self.hal.write("display", self.cycle.faces_display())
        self.start_next_build()

    def start_next_build(self) -> None:
        """Build the next set, unless something holds it: a refeed to be done, a build
        fault (the build's outputs latched), or a technician holding one of the build's
        mechanisms (it starts when they are released)."""
        if (self.build.state != "idle" or self.cycle.state in ("homing", "fault")
                or self.refeed_hold is not None or BUILD in self.shutdown.scopes):
            return
        why = self.owner.refuses(build_mechanisms(self.geometry)) or self.gate_closed()
        if why is not None:
            self.emit("build.held", why=why)
            return
        self.build.start(set_name=self.cycle.set_building)

    def hold_for_gate(self) -> None:
        """The booking gate is closed: the hand just ended stays the last one. The
        display and the ready lamp say so until the venue enables the table."""
        self.hal.write("display", GATE_DISPLAY)
        self.hal.write("lamp.ready", False)
        self.emit("gate.held", why=self.gate_closed())

    def gate_opened(self) -> None:
        """The venue enabled the table: a held build starts, the lid key works again."""
        if self.hal.read("display") == GATE_DISPLAY:
            self.hal.write("display", "")
            self.hal.write("lamp.ready", self.build.state == "staged")
        self.start_next_build()

    def request_refeed(self, reason: str) -> None:
        """A set that cannot be trusted is built again from the start, never resumed."""
        self.emit("refeed", set=self.cycle.set_building, reason=reason)
        self.build.start(set_name=self.cycle.set_building)

    # -- journal ----------------------------------------------------------------------

    def _journal_state(self, clean: bool) -> dict[str, Any]:
        # The recent history, and every fault still active however old, in the order
        # raised (times restart at every boot, so they do not order a history).
        recent = {id(f) for f in self.faults[-50:]}
        machines = self.machine_status()
        kept = [f for f in self.faults if f.active or id(f) in recent]
        # What a fault parked is journaled as where recovery puts it back: a cut while
        # the fault holds the table must not lose the staged set, raise or deal.
        states = recovery.journaled(self)
        build, cycle = states["build"], states["cycle"]
        staged = build == "staged"
        return {
            "clean": clean,
            "table": self.config.table.id,
            **{key: machines[key] for key in JOURNALED_STATUS},
            "build": build,
            "staged_walls": self.build.walls if staged else None,
            "staged_set": self.build.set_name if staged else None,
            "timings": self.supervisor.export(),
            "faults": [{**f.as_dict(), "side": f.side} for f in kept],
            "fault_counts": dict(self.fault_counts),
            "face_up": self.face_up.export(),
            "wear": self.wear.export(),
            "commitment": self.handoff.commitment,
            # The last hand's nonce and the next hand's dice seed, in play too: a cut
            # must not lose them, or the next record reveals nothing and the chain
            # breaks (the file is 0600; the API never serves it).
            "handoff": self.handoff.secret(),
            "tampered": self.tampered,
            "session": self.scoring.export(),
            # A hand being dealt survives a power cut: walls up, dice partly thrown.
            "deal": self.cycle.deal_state(cycle),
            "raising": self.cycle.raise_in_progress(cycle),
            "shown_faces": self.cycle.shown_faces if cycle == "play" else None,
            # Still waiting for the operator's refeed: a restart must hold again, or it
            # would build over the half-built set's tiles left in belts and heads.
            "refeed_pending": self.refeed_hold is not None,
        }

    def save_journal(self, clean: bool = False) -> None:
        """Write the journal now (also at the end of a resume, recovery.py)."""
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
        """The one place machines are put straight into a saved state (at boot)."""
        saved = self.journal.load()
        self.journal_read = True
        if saved:
            self.supervisor.restore(saved.get("timings", {}))
            self.face_up.restore(saved.get("face_up", {}))
            self.wear.restore(saved.get("wear") or {})
            self.scoring.restore(saved.get("session"))
            self.cycle.number = int(saved.get("cycle", 0))
            self.cycle.set_in_play = saved.get("set_in_play")
            self.cycle.set_building = saved.get("set_building") or self.geometry.first_set
            self.tampered = bool(saved.get("tampered", False))
            self.fault_counts.update(saved.get("fault_counts", {}))
            # Faults still active at the stop stay active (a jam freed with the power off
            # is still cleared by a technician); the rest come back as history. A note
            # (severity I) is never active of itself.
            self.faults = [
                Fault(f["id"], f["where"], f.get("side"), f["cycle"], f["sim_time_s"],
                      f.get("evidence", {}),
                      active=bool(f.get("active")) and CATALOGUE[f["id"]].severity != INFO)
                for f in saved.get("faults", []) if f.get("id") in CATALOGUE]
            if saved.get("staged_walls"):
                self.build.restore_staged(saved["staged_set"], saved["staged_walls"])
            if isinstance(saved.get("handoff"), dict):
                self.handoff.restore_secret(saved["handoff"])
            if saved.get("deal"):
                self.cycle.restore_deal(saved["deal"])
            elif saved.get("shown_faces"):
                self.cycle.shown_faces = [int(f) for f in saved["shown_faces"]]
            if saved.get("raising") and self.build.state == "staged":
                self.cycle.restore_raise()
            # Any build not complete — building, paused, sweeping, stopped by a fault —
            # left tiles in belts and heads: never built over, always refed.
            building = saved.get("build") not in NOT_INCOMPLETE or bool(
                saved.get("refeed_pending"))
            evidence = {"build_in_progress": building, "set": saved.get("set_building"),
                        "cycle": saved.get("cycle"), "build_state": saved.get("build")}
            if not saved.get("clean", False):
                fault = self.fault("power.recovered", "power", None, evidence)
            elif building:
                fault = self.fault("build.interrupted", "build", None, evidence)
            if building:
                # The half-built set is declared invalid: hold until it is refed. The
                # refeed also answers a count that came out short or long (the whole
                # set goes in again), so those are history: the display asks for the
                # refeed, not for a top-up the table would refuse.
                fault.active = True
                self.refeed_hold = fault
                for old in self.faults:
                    if old.active and old.kind.answer == REFEED:
                        old.active = False
        self.save_journal(clean=False)

    # -- events -----------------------------------------------------------------------

    def emit(self, kind: str, **data: Any) -> None:
        event = {"t": round(self.clock.now(), 3), "kind": kind, **data}
        for subscriber in self.subscribers:
            subscriber(event)
        if kind in JOURNALED:
            self.save_journal()

    # -- faults and the one shutdown path -----------------------------------------------

    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault:
        """Raise a fault. An error goes through the shutdown path before anything else."""
        self.recorder.mark()        # what follows is the fault's doing, not its cause
        kind = CATALOGUE[fault_id]
        same = kind.severity != INFO and next(
            (f for f in self.faults if f.active and (f.id, f.where, f.side) == (
                fault_id, where, side)), None)
        if same:
            # Already active: its scope stopped safe and stays latched until it is
            # cleared. One cause, one fault, with a count and a rate.
            same.repeated(self.clock.now(), evidence)
            same.diagnosis_extra = self._diagnose(same)
            self.fault_counts[fault_id] += 1
            self.emit("fault.repeated", id=fault_id, code=same.code, where=where,
                      repeats=same.repeats, per_minute=same.per_minute())
            return same
        again = self._capped(fault_id, where, side)
        if again is not None:
            # The same cause again within the hour, past its cap: its last fault comes
            # back, through the shutdown path like any other.
            again.repeated(self.clock.now(), evidence)
            again.active = True
            if kind.severity == ERROR:
                self._shut_down(kind.scope, again)
            again.diagnosis_extra = self._diagnose(again)
            self.fault_counts[fault_id] += 1
            with table_language():      # the event is the table's, not the client's
                shown = again.as_dict()
            self.emit("fault", **shown, reopened=True, repeats=again.repeats)
            return again
        fault = Fault(fault_id, where, side, self.cycle.number, self.clock.now(), evidence,
                      active=kind.severity != INFO)
        if kind.severity == ERROR:
            self._shut_down(kind.scope, fault)
        self._record(fault)
        fault.diagnosis_extra = self._diagnose(fault)
        with table_language():      # raised inside a client's request: still the table's
            shown = fault.as_dict()
        self.emit("fault", **shown)
        return fault

    def _capped(self, fault_id: str, where: str, side: int | None) -> Fault | None:
        """The last fault of this cause when it raised its hourly cap already."""
        if CATALOGUE[fault_id].severity == INFO:
            return None
        since = self.clock.now() - HOUR_S
        recent = [f for f in self.faults if (f.id, f.where, f.side) == (fault_id, where, side)
                  and f.sim_time_s > since]
        return recent[-1] if len(recent) >= CAUSE_FAULTS_PER_HOUR else None

    def _diagnose(self, fault: Fault) -> dict[str, Any] | None:
        """What the evidence adds to the catalogue: the suspects ranked, a recurring
        tile, a blind count sensor told from a jammed belt."""
        learned = self.face_up.diagnose(fault, self) or blind_cause(fault, self) or {}
        ranked = rank(fault, self) or {}
        if learned.get("recurring"):        # one tile coming back: that tile, certain
            ranked = {"suspects": ranked["suspects"][:1], "certain": True}
        return {**ranked, **learned} or None

    def _record(self, fault: Fault) -> None:
        if fault.kind.severity == WARNING:
            # A warning needs no technician: the newest of a kind at one place carries
            # it, the older ones become history (counted in fault_counts). A weak tile
            # never replaced would otherwise keep one active entry per build for ever.
            for old in self.faults:
                if old.active and (old.id, old.where, old.side) == (
                        fault.id, fault.where, fault.side):
                    old.active = False
        self.faults.append(fault)
        self.fault_counts[fault.id] += 1
        if len(self.faults) > FAULT_HISTORY * 2:
            # A table runs for years: keep every active fault and the recent others.
            old = [f for f in self.faults if not f.active]
            drop = {id(f) for f in old[:len(old) - FAULT_HISTORY]}
            self.faults = [f for f in self.faults if id(f) not in drop]

    def _shut_down(self, scope: str, fault: Fault | None) -> None:
        """The one shutdown path: safe outputs of `scope` first, latched; then every
        supervision and timer of the scope stopped and its machines parked.

        What each parked machine was doing is kept with the fault (or the halt) that
        parked it, and only for the machines it parked (firmware/recovery.py)."""
        table = scope == TABLE
        machines = self._machines() if table else (
            () if self.build.state == "staged" else (self.build, *self.sides))
        parked = recovery.park(self, machines)
        if fault is not None:
            fault.parked = parked
        else:
            self.halt_parked = {**parked, **self.halt_parked}

        def mark_untrusted() -> None:
            if fault is not None and fault.kind.untrusts_count and (
                    self.build.running or self.build.state == "sweeping"):
                self.build.untrusted = True

        def stop_timers() -> None:
            if table:
                self.supervisor.cancel_all()
                if self._chord is not None:
                    self._chord.cancel()
                    self._chord = None
            else:
                self.build.stop_supervision()

        def show() -> None:
            if fault is not None:
                self.hal.write("display", fault.code)
            self.hal.write("lamp.building", False)

        def park_machines() -> None:
            for machine in machines:
                machine.fail()

        self.shutdown.invoke(scope, self.hal.safe_state if table else self.build.motors_off,
                             mark_untrusted, stop_timers, show, park_machines)

    def on_machine_error(self, event: EventData) -> None:
        """A bug in a callback: the table goes through the shutdown path and shows E99.

        A trigger its machine refuses (MachineError) leaves the controller running,
        safe and latched, so the fault is seen and can be cleared. Any other exception
        is then raised on: the journal already holds E99 active, so a restarted daemon
        comes up stopped with it, never with the motors in an unknown state."""
        machine = type(event.model).__name__
        self.emit("software.error", error=repr(event.error), machine=machine)
        if self._in_machine_error:
            self.hal.safe_state()       # an error while parking: outputs safe, no recursion
            return
        self._in_machine_error = True
        try:
            trigger = event.event.name if event.event is not None else None
            state = event.state.name if event.state is not None else None
            self.fault("software.error", machine.lower(), None,
                       {"error": repr(event.error), "machine": machine, "trigger": trigger,
                        "state": state})
        finally:
            self._in_machine_error = False
        if not isinstance(event.error, MachineError):
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
            table[f"side.{n}.plate_home"] = lambda v, p=self.plates[n]: self._plate_home(
                p, bool(v))
            table[f"side.{n}.tile_id"] = side.on_reader
            table[f"key.dice.{n}"] = lambda v, n=n: v and self._dice_key(n)
        for n in (0, 1):
            table[f"key.lift.{n}"] = lambda v, n=n: v and self._lift_key(n)
        return table

    def tile_face_up(self, side: SideBuilder, index: int, tile: str | None) -> None:
        """A tile arrived face up: warn, and say whether it is one defective tile."""
        slot = [side.side, index // 2, 1 if index % 2 == 0 else 0]
        self.face_up.seen(self.build.set_name, self.cycle.number, slot)
        self.fault("tile.face_up", f"side.{side.side}.head", side.side,
                   {"sensor": f"side.{side.side}.face_up", "tile_index": index,
                    "wall_slot": slot, "set": self.build.set_name})

    def _plate_home(self, plate: Plate, home: bool) -> None:
        plate.on_sensor(home)
        if home and self.cycle.state == "homing":
            # It may be the last cam awaited: a glitch that hid it at the last check
            # leaves no other edge to end the homing.
            self.clock.post(self.cycle.check_homed)

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
            if self._held("lift", ["lid"]):
                return
            if self.cycle.may_both_lift_keys():
                self.cycle.both_lift_keys()
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
        if self.cycle.may_lift_key():
            self.cycle.lift_key()
        else:
            self.emit("key.ignored", key="lift", state=self.cycle.state)

    def _dice_key(self, seat: int) -> None:
        self.emit("key", key=f"key.dice.{seat}")
        if self._held(f"dice.{seat}", ["dice"]):
            return
        if self.cycle.may_dice_key(seat=seat):
            self.cycle.dice_key(seat=seat)
        else:
            self.emit("key.ignored", key=f"dice.{seat}", state=self.cycle.state)

    # -- technician actions (console API, test mode) ------------------------------------

    def _machines(self) -> tuple[Any, ...]:
        return (self.cycle, self.build, self.lid, self.dice, *self.sides, *self.plates)

    def halt(self, reason: str, held_by: str | None = None) -> None:
        """Stop all work through the shutdown path: every machine parked in its fault
        state. `held_by` (words.TEST_MODE, words.ESTOP) names the stop in the events,
        never a fault."""
        self.halted_by = held_by
        try:
            self._shut_down(TABLE, None)
        finally:
            self.halted_by = None
        self.emit("halted", reason=reason, **({"held_by": held_by} if held_by else {}))

    def estop(self, by: str | None = None) -> None:
        """Emergency stop: everything off until a technician releases it."""
        self.halt("estop", words.ESTOP)
        self.estopped = True
        self.hal.write("display", "ES")
        self.emit("estop", by=by)

    def release_estop(self, by: str) -> None:
        self.estopped = False
        self.hal.write("display", "")
        self.emit("estop.released", by=by)

    def clear_fault(self, fault: Fault, by: str, refed: bool = False) -> None:
        """A technician says the cause of `fault` is dealt with.

        Refused (ClearRefused) while a sensor still shows the cause (the case still
        open outside service mode; the board's link still lost), and for the refeed
        hold unless the operator says the set was refed (`refed`): nothing senses
        stacks left on the tracks, and a build over them mixes two sets."""
        answer = fault.kind.answer
        if answer == CASE_CLOSED and self.hal.read("case_open") and not self.service_mode:
            raise ClearRefused(_("case_open still reads open: close the case first, or "
                                 "enter test mode to service it"))
        if answer == RELINK and self.hal.capabilities.link and self.hal.link_lost:
            # Cleared while lost, the table would sit silent: the link clears it by
            # itself once the board answers a HELLO again (firmware/relink.py).
            raise ClearRefused(_("the I/O board's link is still lost: check the cable; "
                                 "the table connects again by itself"))
        if fault is self.refeed_hold and not refed:
            raise ClearRefused(_("the set half built at the stop must be refed first: "
                                 "empty belts, heads and tracks onto the disc, then clear "
                                 "it as refed (console: clear ID --refed)"))
        fault.active = False
        self._show_after_clear(fault)
        if fault.id == "tile.face_up":
            self.face_up.suspected.discard(fault.side)     # the sensor seen to again
        if fault.id == "sensor.degraded":
            # Replaced or repaired: the sensor is believed again.
            self.supervisor.restore_sensor(fault.where)
        self.emit("fault.cleared", id=fault.id, code=fault.code, where=fault.where, by=by)
        if fault is self.refeed_hold:
            # The operator has refed the set that was half built at the power cut.
            self.refeed_hold = None
            if self.hal.read("display") == "rF":
                # Refed: stop asking for it; an error still held shows its code.
                held = [f for f in self.faults if f.active and f.kind.severity == ERROR]
                self.hal.write("display", held[-1].code if held
                               else self.cycle.faces_display())
            if self.cycle.state not in ("homing", "fault") and self.build.state == "idle":
                self.request_refeed("refed after an unclean stop")
        if fault.id == "case.opened":
            self.tampered = False

    def _show_after_clear(self, fault: Fault) -> None:
        """The display never shows a cleared fault: the most severe active error (the
        newest of them), else what the table shows without one."""
        # Over identify's "Id" too: its blink would put the cleared code back.
        if self.hal.read("display") not in (fault.code, IDENTIFY_SHOWN) or any(
                f.active and f.code == fault.code for f in self.faults):
            return
        held = [f for f in self.faults if f.active and f.kind.severity == ERROR]
        self.hal.write("display", held[-1].code if held else
                       "rF" if self.refeed_hold is not None else
                       self.cycle.faces_display() or "")

    def may_resume(self) -> bool:
        """No e-stop and no active error fault: the table may start again."""
        return not self.estopped and not any(
            f.active and f.kind.severity == ERROR for f in self.faults)

    def needs_resume(self) -> bool:
        """Some machine was stopped by a fault or a halt and waits to go on."""
        return bool(self.shutdown.scopes) or any(
            m.state == "fault" for m in self._machines())

    def resume_after_fault(self) -> None:
        """Go on after a halt: every mechanism re-reads its sensors and the interrupted
        motion is issued again through the machines' declared resume transitions
        (firmware/recovery.py). A set whose counts cannot be trusted is built again
        from the start, never resumed (docs/mechanics.md, step 10)."""
        self.emit("resume_after_fault")
        held = self._build_held()
        if held is not None:
            recovery.resume_table(self, held)
            return
        recovery.resume(self)

    def _build_held(self) -> list[str] | None:
        """With only build faults active and the table latched too: the build machines
        they hold (the rest of the table may go on), else None."""
        active = [f for f in self.faults if f.active and f.kind.severity == ERROR]
        if TABLE not in self.shutdown.scopes or not active or self.estopped or any(
                f.kind.scope != BUILD for f in active):
            return None
        return [name for f in active for name in f.parked]

    def may_resume_table(self) -> bool:
        """Only build faults hold: the cycle, lid, plates and dice may go on."""
        return self._build_held() is not None

    # -- views ------------------------------------------------------------------------

    def machine_status(self) -> dict[str, Any]:
        """Every machine's own status(), keyed as the status picture names them."""
        return {
            **self.cycle.status(),
            "build": self.build.status()["state"],
            "lid": self.lid.status()["state"],
            "sides": [s.status() for s in self.sides],
            "plates": [p.status()["state"] for p in self.plates],
            "dice": self.dice.status(),
        }

    def lamps(self) -> list[str]:
        """The panel's lamps, in the signal catalogue's order."""
        return [name for name, sig in self.hal.signals.items() if sig.kind is Kind.LAMP]

    def status(self) -> dict[str, Any]:
        """The one status picture: the API, the live view and the TUI show it, and the
        journal records the machines' part of it (`machine_status`)."""
        active = [f for f in self.faults if f.active]
        return {
            **self.machine_status(),
            "faults": [f.as_dict() for f in active],
            "t": round(self.clock.now(), 3),
            "table": self.config.table.id,
            "estopped": self.estopped,
            "held_by": words.mode(self.estopped, self.service_mode,
                                  any(f.kind.severity == ERROR for f in active)),
            "display": self.hal.read("display"),
            "lamps": {name: bool(self.hal.read(name)) for name in self.lamps()},
        }
