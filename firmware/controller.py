"""The controller: the composition root of one table.

`compose_table` is the one composition of a running table: the daemon, the simulator's
harness, the benches and the tests call it. `Controller` builds the ports a machine is
handed (`machines/ports.py`: the outputs behind the latch, the clock, the config,
supervision and motions, the fault sink, `emit`, the table's marks), the machines with
their named peers, and the wings that work on them (the fault path, clearing, the
journaled table state, diagnosis); it starts and stops the table and draws the one
status picture. Every input change arrives through `inputs`, inside the loop; nothing
else touches machine state.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware import words
from firmware.diagnosis.recorder import FlightRecorder
from firmware.diagnosis.recurrence import FaceUpTracker
from firmware.diagnosis.silent import SilentSensors
from firmware.diagnosis.wear import Wear
from firmware.faults import recovery, relink
from firmware.faults.clearing import Clearing
from firmware.faults.guided_refeed import GuidedRefeed
from firmware.faults.kinds import ERROR, Fault
from firmware.faults.path import FaultPath
from firmware.faults.shutdown import TABLE, LatchedOutputs, Shutdown
from firmware.hands.consumers import attach_consumers
from firmware.hands.handoff import Handoff
from firmware.hands.scoring import TableScore
from firmware.machines.build import Build
from firmware.machines.cycle import Cycle
from firmware.machines.dice import Dice
from firmware.machines.inputs import Inputs
from firmware.machines.lid import Lid
from firmware.machines.maintenance import Maintenance, TableWork
from firmware.machines.motion import Motions
from firmware.machines.off_home import OffHome
from firmware.machines.owner import Owner
from firmware.machines.plate import Plate
from firmware.machines.ports import Marks, Ports, edge_clock
from firmware.machines.side import SideBuilder
from firmware.machines.supervisor import Supervisor
from firmware.state.journal import Journal, MemoryJournal
from firmware.state.table_state import TableState
from hal.interface import Hal
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.signals import Kind

Event = dict[str, Any]
Subscriber = Callable[[Event], None]

# Events after which the journal is written.
JOURNALED = {"build.started", "build.staged", "handoff", "fault", "resume", "refeed",
             "walls.committed", "dice.thrown", "raising", "fault.cleared"}


def compose_table(config: Config, hal: Hal, clock: Clock, journal: Journal | None = None,
                  *, consumers: bool = True, state_dir: Path | None = None) -> Controller:
    """One table, composed: the controller and its machines on `hal` and `clock`, and
    (`consumers`) the config's handoff file and rules engine on its handoff (a
    relative handoff file goes in `state_dir`). Raises ConfigError for a bad engine."""
    ctl = Controller(config, hal, clock, journal)
    if consumers:
        attach_consumers(ctl, state_dir)
    return ctl


class _Mark:
    """A controller attribute that is one of the table's marks (`ports.Marks`), which
    the machines share: the fault wing and the API read and set it here."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, ctl: Controller, owner: type | None = None) -> Any:
        return getattr(ctl.marks, self.name)

    def __set__(self, ctl: Controller, value: Any) -> None:
        setattr(ctl.marks, self.name, value)


class Controller:
    tampered = _Mark()
    service_mode = _Mark()
    estopped = _Mark()
    halted_by = _Mark()
    refeed_hold = _Mark()
    gate_closed = _Mark()

    def __init__(self, config: Config, hal: Hal, clock: Clock,
                 journal: Journal | None = None) -> None:
        self.config = config
        self.marks = Marks()        # the table's marks, shared with the machines
        self.geometry = geometry = config.geometry
        self.timing = config.timing
        # Every write goes through the latch: after a shutdown nothing restarts a motor.
        self.outputs = outputs = LatchedOutputs(hal)
        self.hal = outputs
        self.shutdown = Shutdown(outputs)
        self.owner = owner = Owner()
        outputs.owner = owner
        outputs.on_refused = lambda name, value: self.emit(
            "motor.refused", signal=name, value=value, latched=sorted(outputs.scopes))
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
        self.edge_time = edge_clock(outputs, clock)
        self.supervisor = supervisor = Supervisor(outputs, clock, self.timing, geometry,
                                                  self.fault, self.emit, self.edge_time)
        self.watch = supervisor.watch
        self.motions = Motions(outputs, supervisor)
        self.ports = ports = Ports(outputs, clock, config, self.emit, self.fault,
                                   self.on_machine_error, self.edge_time, self.marks,
                                   supervisor, self.motions)
        self.face_up = FaceUpTracker(geometry.side_count)
        self.table_state = TableState(self)   # writes `self.journal`, which a test may swap
        self.save_journal = self.table_state.save
        self.handoff = Handoff(self)
        self.scoring = TableScore(self)     # the game's scores and the next dealer
        self.lid = Lid(ports, owner)
        self.sides = [SideBuilder(ports, n) for n in geometry.sides]
        self.plates = [Plate(ports, n) for n in geometry.sides]
        self.dice = Dice(ports)
        self.build = Build(ports, self.sides, self.lid)
        self.cycle = cycle = Cycle(ports, self.lid, self.plates, self.build, self.dice, owner,
                                   self.handoff, self.scoring.next_dealer, self.faults)
        owner.bind(cycle=cycle, build=self.build, lid=self.lid, dice=self.dice,
                   sides=self.sides, plates=self.plates, supervisor=supervisor,
                   on_release=cycle.start_next_build)
        self.home, self.start_next_build = cycle.home, cycle.start_next_build
        self.request_refeed, self.gate_opened = cycle.request_refeed, cycle.gate_opened
        self.off_home = OffHome(ports, cycle, self.lid, self.plates, owner, self.journaled)
        self.rehome_plates = self.off_home.rehome_plates
        self.plate_turn_refused = self.off_home.turn_refused
        self.plate_off_home = self.off_home.plate_off_home
        self.check_plates_at_rest = self.off_home.check_plates_at_rest
        self.clearing = clearing = Clearing(self)
        self.halt, self.estop, self.release_estop = (
            clearing.halt, clearing.estop, clearing.release_estop)
        self.clear_fault, self.top_up_done = clearing.clear_fault, clearing.top_up_done
        cycle.top_up_done = clearing.top_up_done
        self.may_resume, self.needs_resume = clearing.may_resume, clearing.needs_resume
        self.resume_after_fault = clearing.resume_after_fault
        self.may_resume_table = clearing.may_resume_table
        # The refeed hold answered by the players' lift keys (no technician).
        self.guided_refeed = GuidedRefeed(self)
        self.inputs = Inputs(ports, lid=self.lid, dice=self.dice, sides=self.sides,
                             plates=self.plates, build=self.build, cycle=cycle, owner=owner,
                             faults=self.faults, face_up_seen=self.face_up.seen,
                             lift_released=self.guided_refeed.key_released,
                             refed_by_keys=self.guided_refeed.both_keys)
        self.input_watchers = self.inputs.watchers
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

    def journaled(self) -> dict[str, str]:
        """Each machine's state as the journal keeps it (recovery.py)."""
        return recovery.journaled(self)

    def maintenance(self) -> Maintenance:
        """Test mode, self-tests and jog on this table (one per API server)."""
        work = TableWork(self.start, self.halt, self.needs_resume, self.may_resume,
                         self.may_resume_table, self.resume_after_fault)
        return Maintenance(self.ports, cycle=self.cycle, build=self.build, lid=self.lid,
                           dice=self.dice, sides=self.sides, plates=self.plates,
                           owner=self.owner, work=work, journaled=self.journaled,
                           turn_refused=self.plate_turn_refused,
                           input_watchers=self.input_watchers, subscribers=self.subscribers)

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

    def stop(self) -> None:
        """A clean stop, through the shutdown path: every output safe and latched, no
        supervision left. The machines keep their states for the journal."""
        self.shutdown.invoke(TABLE, self.hal.safe_state, self.supervisor.cancel_all)
        self.emit("stop")
        self.save_journal(clean=True)

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
