"""What the hands wing uses of the table: the handoff, the scoring hook and the
consumers are written against these Protocols, not the controller.

The controller hands itself to them and satisfies these by shape; this module imports
nothing that imports it back, so the wing and the composition root form no import
cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from firmware.faults.table import Parked

if TYPE_CHECKING:
    from firmware.faults.kinds import Fault
    from firmware.faults.shutdown import LatchedOutputs
    from mjtable_core.config import Config
    from mjtable_core.geometry import Geometry
    from rules.variants import Variant


class Dealt(Protocol):
    """The handoff (handoff.py) as the scoring and the consumers see it."""

    records: list[dict[str, Any]]
    consumers: list[Any]
    previous_commitment: str | None

    @property
    def variant(self) -> Variant: ...


class Scored(Protocol):
    file: Callable[[dict[str, Any]], None] | None     # where scored hands are kept


class Table(Protocol):
    """What a hand's handoff reads and writes: the configuration, the outputs (the
    display, the dice's entropy), the event stream and the fault path."""

    @property
    def config(self) -> Config: ...
    @property
    def hal(self) -> LatchedOutputs: ...

    def emit(self, kind: str, **data: Any) -> None: ...
    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault: ...


class Scoring(Table, Parked, Protocol):
    """What the scoring hook reads besides: the seats, the hand in play (the resume
    plan says which is), the handoff's records, the journal."""

    @property
    def geometry(self) -> Geometry: ...
    @property
    def handoff(self) -> Dealt: ...

    def save_journal(self, clean: bool = False) -> None: ...


class Consuming(Protocol):
    """Where consumers are attached: the handoff and the scoring hook."""

    @property
    def config(self) -> Config: ...
    @property
    def handoff(self) -> Dealt: ...
    @property
    def scoring(self) -> Scored: ...

    def emit(self, kind: str, **data: Any) -> None: ...
