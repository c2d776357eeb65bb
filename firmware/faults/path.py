"""The fault path: raise a fault, and the one shutdown path every fault, halt and
machine error goes through.

An error stops its scope's outputs safe and latched before anything else is done;
then supervision and timers of the scope stop and its machines are parked; only then
is the fault recorded, diagnosed and emitted. One cause, one active fault: the same
cause again is counted on the fault already active, and past its hourly cap the last
fault of the cause comes back instead of a new one.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from transitions import EventData
from transitions.core import MachineError

from firmware.diagnosis.differential import rank, verdict
from firmware.faults import recovery
from firmware.faults.kinds import CATALOGUE, ERROR, INFO, WARNING, Fault
from firmware.faults.kinds.table import SOFTWARE_ERROR
from firmware.faults.repeat_rows import RepeatRows
from firmware.faults.shutdown import TABLE
from firmware.i18n import table_language

if TYPE_CHECKING:
    from firmware.faults.table import Table

# Fault history kept in memory and journal: every active fault, and this many recent
# others; `counts` keeps how often each fault was raised since power-on.
FAULT_HISTORY = 100
# One cause (a fault kind at one place) raises at most this many faults per hour of
# table time; past it, its last fault comes back with its count and rate: a cause that
# keeps returning after each clear is one entry a technician reads, not a list.
CAUSE_FAULTS_PER_HOUR = 3
HOUR_S = 3600.0


class FaultPath:
    def __init__(self, ctl: Table) -> None:
        self.ctl = ctl
        # Kept in place (never rebound): the controller and the API hold this list.
        self.faults: list[Fault] = []
        self.counts: Counter[str] = Counter()
        self._in_machine_error = False
        # fault.repeated rows: one per fault a minute, with the count of the rest.
        self.repeat_rows = RepeatRows(ctl.clock, ctl.emit)

    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault:
        """Raise a fault. An error goes through the shutdown path before anything else."""
        ctl = self.ctl
        ctl.recorder.mark()         # what follows is the fault's doing, not its cause
        kind = CATALOGUE[fault_id]
        same = kind.severity != INFO and next(
            (f for f in self.faults if f.active and (f.id, f.where, f.side) == (
                fault_id, where, side)), None)
        if same:
            # Already active: its scope stopped safe and stays latched until it is
            # cleared. One cause, one fault, with a count and a rate.
            same.repeated(ctl.clock.now(), evidence)
            same.diagnosis_extra = self.diagnose(same)
            self.counts[fault_id] += 1
            self.repeat_rows.repeated((fault_id, where, side), id=fault_id, code=same.code,
                                      where=where, repeats=same.repeats,
                                      per_minute=same.per_minute())
            return same
        again = self.capped(fault_id, where, side)
        if again is not None:
            # The same cause again within the hour, past its cap: its last fault comes
            # back, through the shutdown path like any other.
            again.repeated(ctl.clock.now(), evidence)
            again.active = True
            if kind.severity == ERROR:
                self.shut_down(kind.scope, again)
            again.diagnosis_extra = self.diagnose(again)
            self.counts[fault_id] += 1
            with table_language():      # the event is the table's, not the client's
                shown = again.as_dict()
            ctl.emit("fault", **shown, reopened=True, repeats=again.repeats)
            return again
        fault = Fault(fault_id, where, side, ctl.cycle.number, ctl.clock.now(), evidence,
                      active=kind.severity != INFO)
        if kind.severity == ERROR:
            self.shut_down(kind.scope, fault)
        self.record(fault)
        fault.diagnosis_extra = self.diagnose(fault)
        with table_language():      # raised inside a client's request: still the table's
            shown = fault.as_dict()
        ctl.emit("fault", **shown)
        return fault

    def capped(self, fault_id: str, where: str, side: int | None) -> Fault | None:
        """The last fault of this cause when it raised its hourly cap already."""
        if CATALOGUE[fault_id].severity == INFO:
            return None
        since = self.ctl.clock.now() - HOUR_S
        recent = [f for f in self.faults if (f.id, f.where, f.side) == (fault_id, where, side)
                  and f.sim_time_s > since]
        return recent[-1] if len(recent) >= CAUSE_FAULTS_PER_HOUR else None

    def diagnose(self, fault: Fault) -> dict[str, Any] | None:
        """What the evidence adds to the catalogue: the suspects ranked, a recurring
        tile, and the verdict of a kind whose evidence tells two causes apart (a blind
        count sensor told from a jammed belt)."""
        ctl = self.ctl
        learned = ctl.face_up.diagnose(fault, ctl) or verdict(fault, ctl) or {}
        ranked = rank(fault, ctl) or {}
        if learned.get("recurring"):        # one tile coming back: that tile, certain
            ranked = {"suspects": ranked["suspects"][:1], "certain": True}
        return {**ranked, **learned} or None

    def record(self, fault: Fault) -> None:
        if fault.kind.severity == WARNING:
            # A warning needs no technician: the newest of a kind at one place carries
            # it, the older ones become history (counted in `counts`). A weak tile
            # never replaced would otherwise keep one active entry per build for ever.
            for old in self.faults:
                if old.active and (old.id, old.where, old.side) == (
                        fault.id, fault.where, fault.side):
                    old.active = False
        self.faults.append(fault)
        self.counts[fault.id] += 1
        if len(self.faults) > FAULT_HISTORY * 2:
            # A table runs for years: keep every active fault and the recent others.
            old = [f for f in self.faults if not f.active]
            drop = {id(f) for f in old[:len(old) - FAULT_HISTORY]}
            self.faults[:] = [f for f in self.faults if id(f) not in drop]

    def shut_down(self, scope: str, fault: Fault | None) -> None:
        """The one shutdown path: safe outputs of `scope` first, latched; then every
        supervision and timer of the scope stopped and its machines parked.

        What each parked machine was doing is kept with the fault (or the halt) that
        parked it, and only for the machines it parked (firmware/faults/recovery.py)."""
        ctl = self.ctl
        table = scope == TABLE
        machines = ctl.machines() if table else (
            () if ctl.build.staged else (ctl.build, *ctl.sides))
        parked = recovery.park(ctl, machines)
        if fault is not None:
            fault.parked = parked
        else:
            ctl.halt_parked = {**parked, **ctl.halt_parked}

        def mark_untrusted() -> None:
            if fault is not None and fault.kind.untrusts_count and (
                    ctl.build.part_built):
                ctl.build.untrusted = True

        def stop_timers() -> None:
            if table:
                ctl.supervisor.cancel_all()
                ctl.inputs.cancel_chord()
            else:
                ctl.build.stop_supervision()

        def show() -> None:
            if fault is not None:
                ctl.hal.write("display", fault.code)
            ctl.hal.write("lamp.building", False)

        def park_machines() -> None:
            for machine in machines:
                machine.fail()

        ctl.shutdown.invoke(scope, ctl.hal.safe_state if table else ctl.build.motors_off,
                            mark_untrusted, stop_timers, show, park_machines)

    def on_machine_error(self, event: EventData) -> None:
        """A bug in a callback: the table goes through the shutdown path and shows E99.

        A trigger its machine refuses (MachineError) leaves the controller running,
        safe and latched, so the fault is seen and can be cleared. Any other exception
        is then raised on: the journal already holds E99 active, so a restarted daemon
        comes up stopped with it, never with the motors in an unknown state."""
        ctl = self.ctl
        machine = type(event.model).__name__
        ctl.emit("software.error", error=repr(event.error), machine=machine)
        if self._in_machine_error:
            ctl.hal.safe_state()        # an error while parking: outputs safe, no recursion
            return
        self._in_machine_error = True
        try:
            trigger = event.event.name if event.event is not None else None
            state = event.state.name if event.state is not None else None
            self.fault(SOFTWARE_ERROR, machine.lower(), None,
                       {"error": repr(event.error), "machine": machine, "trigger": trigger,
                        "state": state})
        finally:
            self._in_machine_error = False
        if not isinstance(event.error, MachineError):
            raise event.error  # type: ignore[misc]
