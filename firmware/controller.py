"""The controller: the composition root of one table.

It builds the machines and the parts they share (outputs behind the latch, the fault
path, input dispatch, the table's journaled state, clearing, the plate-off-home
policy), starts and stops the table, and draws the one status picture. Every input
change arrives through `inputs`, inside the loop; nothing else touches machine state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware import words
from firmware.diagnosis.recorder import FlightRecorder
from firmware.diagnosis.recurrence import FaceUpTracker
from firmware.diagnosis.silent import SilentSensors
from firmware.diagnosis.wear import Wear
from firmware.faults import relink
from firmware.faults.clearing import Clearing
from firmware.faults.guided_refeed import GuidedRefeed
from firmware.faults.kinds import ERROR, Fault
from firmware.faults.path import FaultPath
from firmware.faults.shutdown import BUILD, TABLE, LatchedOutputs, Shutdown
from firmware.hands.handoff import Handoff
from firmware.hands.scoring import TableScore
from firmware.machines.build import Build
from firmware.machines.cycle import Cycle
from firmware.machines.dice import Dice
from firmware.machines.inputs import Inputs
from firmware.machines.lid import Lid
from firmware.machines.motion import Motions
from firmware.machines.off_home import OffHome
from firmware.machines.owner import Owner
from firmware.machines.plate import Plate
from firmware.machines.side import SideBuilder
from firmware.machines.supervisor import Supervisor
from firmware.state.journal import Journal, MemoryJournal
from firmware.state.table_state import TableState
from hal.interface import Hal
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.geometry import Geometry
from mjtable_core.signals import Kind

Event = dict[str, Any]
Subscriber = Callable[[Event], None]

# Shown while the booking gate holds the table: "En(able)".
GATE_DISPLAY = "En"

# Events after which the journal is written.
JOURNALED = {"build.started", "build.staged", "handoff", "fault", "resume", "refeed",
             "walls.committed", "dice.thrown", "raising", "fault.cleared"}


def build_mechanisms(geometry: Geometry) -> list[str]:
    """What a build drives: held by a technician, the next build waits."""
    return ["disc", *[f"{part}.{n}" for n in geometry.sides for part in ("head", "conveyor")]]


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
        # The fault path: every fault, halt and machine error goes through it.
        self.fault_path = FaultPath(self)
        self.faults: list[Fault] = self.fault_path.faults
        self.fault_counts = self.fault_path.counts
        self.fault = self.fault_path.fault
        self.on_machine_error = self.fault_path.on_machine_error
        # Where the machines stopped by a halt (not a fault) were: see recovery.py.
        self.halt_parked: dict[str, str] = {}
        # While a resume runs: where it puts the machines back (journaled meanwhile).
        self.resume_plan: dict[str, str] = {}
        self.supervisor = Supervisor(self)
        self.watch = self.supervisor.watch
        self.face_up = FaceUpTracker(self.geometry.side_count)
        self.tampered = False       # latched by case_open; only a technician clears it
        self.service_mode = False   # the case may be opened in service mode
        self.halted_by: str | None = None  # while a halt parks the machines (events)
        self.refeed_hold: Fault | None = None
        self.estopped = False
        # The booking gate (firmware/service/gate.py): why no new hand may start, or None.
        self.gate_closed: Callable[[], str | None] = lambda: None
        self.table_state = TableState(self)   # writes `self.journal`, which a test may swap
        self.save_journal = self.table_state.save
        self.handoff = Handoff(self)
        self.scoring = TableScore(self)     # the game's scores and the next dealer
        self.motions = Motions(self)
        self.lid = Lid(self)
        self.sides = [SideBuilder(self, n) for n in self.geometry.sides]
        self.plates = [Plate(self, n) for n in self.geometry.sides]
        self.dice = Dice(self)
        self.build = Build(self)
        self.cycle = Cycle(self)
        self.off_home = OffHome(self)
        self.rehome_plates = self.off_home.rehome_plates
        self.plate_turn_refused = self.off_home.turn_refused
        self.plate_off_home = self.off_home.plate_off_home
        self.check_plates_at_rest = self.off_home.check_plates_at_rest
        self.clearing = clearing = Clearing(self)
        self.halt, self.estop, self.release_estop = (
            clearing.halt, clearing.estop, clearing.release_estop)
        self.clear_fault, self.top_up_done = clearing.clear_fault, clearing.top_up_done
        self.may_resume, self.needs_resume = clearing.may_resume, clearing.needs_resume
        self.resume_after_fault = clearing.resume_after_fault
        self.may_resume_table = clearing.may_resume_table
        # The refeed hold answered by the players' lift keys (no technician).
        self.guided_refeed = GuidedRefeed(self)
        self.inputs = Inputs(self)
        self.input_watchers = self.inputs.watchers
        self.edge_time = self.inputs.edge_time
        self.tile_face_up = self.inputs.tile_face_up
        hal.listen(self.inputs.on_signal)
        # A backend with a link of its own (ioboard) reports link.lost / link.version
        # into the fault path, from inside the loop, like any other fault.
        if hal.capabilities.link:
            hal.on_link_fault = lambda fault_id, evidence: relink.link_fault(
                self, fault_id, evidence)
            hal.on_link_back = lambda: relink.link_back(self)
            # A silence carried on from the board's record: no fault, only the log.
            hal.on_link_resumed = self._link_resumed
        # The edges and commands before each fault, logged with it (replayable).
        self.recorder = FlightRecorder(self)
        self.wear = Wear(self)      # trends before a part fails (journaled)
        self.silent = SilentSensors(self)   # sensors a build must light, never lit

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        """Power-on: everything safe, then re-home every mechanism by its sensor.

        Error faults still active at the last stop come back active: the table then
        stays stopped, latched, until a technician clears them."""
        self.hal.safe_state()
        self.emit("start", table=self.config.table.id)
        self.table_state.recover()
        held = [f for f in self.faults if f.active and f.kind.severity == ERROR]
        if held:
            self.fault_path.shut_down(TABLE, held[-1])
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

    def stop(self) -> None:
        """A clean stop, through the shutdown path: every output safe and latched, no
        supervision left. The machines keep their states for the journal."""
        self.shutdown.invoke(TABLE, self.hal.safe_state, self.supervisor.cancel_all)
        self.emit("stop")
        self.save_journal(clean=True)

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

    def _link_resumed(self, evidence: dict[str, Any]) -> None:
        """A silence carried on from the board's record: no fault, only the log; the
        board held every motor meanwhile, so no watchdog counts that time, and a
        motion armed into the hold started only now."""
        self.watch.postpone(evidence.get("held_s", 0.0))
        self.supervisor.postpone(evidence.get("held_s", 0.0))
        self.emit("link.resumed", **evidence)

    # -- events -----------------------------------------------------------------------

    def emit(self, kind: str, **data: Any) -> None:
        event = {"t": round(self.clock.now(), 3), "kind": kind, **data}
        for subscriber in self.subscribers:
            subscriber(event)
        if kind in JOURNALED:
            self.save_journal()

    def machines(self) -> tuple[Any, ...]:
        return (self.cycle, self.build, self.lid, self.dice, *self.sides, *self.plates)

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
