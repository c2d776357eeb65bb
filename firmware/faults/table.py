"""What the fault wing uses of the table: the fault path, clearing, the guided refeed,
recovery and relink are written against these Protocols, not the controller.

The controller (the composition root) hands itself to them and satisfies these by
shape; this module imports nothing that imports it back, so the wing and the root
form no import cycle. Each Protocol names only what the wing reads or calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from firmware.diagnosis.table import Evidence, Machines

if TYPE_CHECKING:
    from firmware.diagnosis.recurrence import FaceUpTracker
    from firmware.faults.kinds import Fault
    from firmware.faults.repeat_rows import RepeatRows
    from firmware.faults.shutdown import LatchedOutputs, Shutdown
    from mjtable_core.clock import Clock

# A state machine: its `state`, and the triggers `transitions` adds at run time
# (reset, recover, settle, ...), which no static type names.
Machine = Any


class Stopping(Protocol):
    """The one shutdown path (firmware/faults/path.py), as clearing calls it."""

    repeat_rows: RepeatRows

    def shut_down(self, scope: str, fault: Fault | None) -> None: ...


class Supervision(Protocol):
    def cancel_all(self) -> None: ...
    def restore_sensor(self, sensor: str) -> None: ...


class Chords(Protocol):
    def cancel_chord(self) -> None: ...


class Marks(Protocol):
    def mark(self) -> None: ...


class Parked(Machines, Protocol):
    """Where the machines are, where a fault or a halt stopped them, and where a
    running resume puts them back: what recovery.py plans from (the API and the
    scoring read the plan too)."""

    faults: list[Fault]
    halt_parked: dict[str, str]     # where a halt (not a fault) stopped the machines
    resume_plan: dict[str, str]     # where a running resume puts them back


class Table(Parked, Evidence, Protocol):
    """The table as the fault wing sees it: its outputs, clock, faults, the holds a
    fault or a halt puts on it, the machines it parks and resumes, and the evidence a
    fault's suspects are ranked by (diagnosis/table.py)."""

    refeed_hold: Fault | None
    estopped: bool
    tampered: bool
    service_mode: bool
    halted_by: str | None

    @property
    def hal(self) -> LatchedOutputs: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def shutdown(self) -> Shutdown: ...
    @property
    def fault_path(self) -> Stopping: ...
    @property
    def supervisor(self) -> Supervision: ...
    @property
    def inputs(self) -> Chords: ...
    @property
    def recorder(self) -> Marks: ...
    @property
    def face_up(self) -> FaceUpTracker: ...

    def machines(self) -> tuple[Machine, ...]: ...
    def emit(self, kind: str, **data: Any) -> None: ...
    def save_journal(self, clean: bool = False) -> None: ...
    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault: ...
    def clear_fault(self, fault: Fault, by: str, refed: bool = False) -> None: ...
    def request_refeed(self, reason: str) -> None: ...
    def home(self) -> None: ...
    def start_next_build(self) -> None: ...
    def plate_turn_refused(self) -> str | None: ...
    def check_plates_at_rest(self) -> None: ...
    def may_resume(self) -> bool: ...
    def needs_resume(self) -> bool: ...
    def resume_after_fault(self) -> None: ...
