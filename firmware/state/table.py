"""What the state wing uses of the table: the event log and the ledger listen to it,
the table's journaled state reads and restores it; all are written against these
Protocols, not the controller.

The controller hands itself to them and satisfies these by shape; this module imports
nothing that imports it back, so the wing and the composition root form no import
cycle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from firmware.faults.table import Parked

if TYPE_CHECKING:
    from firmware.faults.kinds import Fault
    from firmware.faults.shutdown import LatchedOutputs
    from firmware.state.journal import Journal
    from mjtable_core.clock import Clock
    from mjtable_core.config import Config
    from mjtable_core.geometry import Geometry

Subscriber = Callable[[dict[str, Any]], None]


class Listened(Protocol):
    """The event stream, and the hand each event belongs to (`cycle.number`)."""

    @property
    def subscribers(self) -> list[Subscriber]: ...
    @property
    def cycle(self) -> Any: ...


class Kept(Protocol):
    """A part whose record the journal keeps: the supervisor's timings, the face-up
    record, wear, the game's scores."""

    def export(self) -> Any: ...
    def restore(self, saved: Any) -> None: ...


class Sealed(Protocol):
    """The handoff's commitment and the secret behind it (hands/handoff.py)."""

    commitment: str | None

    def secret(self) -> dict[str, Any]: ...
    def restore_secret(self, saved: dict[str, Any]) -> None: ...


class Journaled(Parked, Protocol):
    """What the journal records of the table and restores at power-on."""

    refeed_hold: Fault | None
    tampered: bool

    @property
    def config(self) -> Config: ...
    @property
    def geometry(self) -> Geometry: ...
    @property
    def hal(self) -> LatchedOutputs: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def journal(self) -> Journal: ...
    @property
    def fault_counts(self) -> Counter[str]: ...
    @property
    def supervisor(self) -> Kept: ...
    @property
    def face_up(self) -> Kept: ...
    @property
    def wear(self) -> Kept: ...
    @property
    def scoring(self) -> Kept: ...
    @property
    def handoff(self) -> Sealed: ...

    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault: ...
