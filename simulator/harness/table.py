"""The firmware's table as the harness, the watchdog, the fuzz and the benches drive it
from outside: start and stop it, listen to its events, read its faults and machines,
and clear and resume as a technician would.

The harness is handed a composed table and types it by this Protocol, so nothing in
the simulator imports the controller for its type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from firmware.diagnosis.wear import Wear
    from firmware.faults.kinds import Fault

# A state machine: its `state` and fields, as the harness reads them.
Machine = Any
Subscriber = Callable[[dict[str, Any]], None]


class Handed(Protocol):
    """The handoff's records and consumers (firmware/hands/handoff.py)."""

    records: list[dict[str, Any]]
    consumers: list[Any]


class Driven(Protocol):
    faults: list[Fault]
    refeed_hold: Fault | None
    estopped: bool

    @property
    def subscribers(self) -> list[Subscriber]: ...
    @property
    def cycle(self) -> Machine: ...
    @property
    def build(self) -> Machine: ...
    @property
    def sides(self) -> Sequence[Machine]: ...
    @property
    def supervisor(self) -> Any: ...
    @property
    def handoff(self) -> Handed: ...
    @property
    def wear(self) -> Wear: ...

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def clear_fault(self, fault: Fault, by: str, refed: bool = False) -> None: ...
    def may_resume(self) -> bool: ...
    def may_resume_table(self) -> bool: ...
    def needs_resume(self) -> bool: ...
    def resume_after_fault(self) -> None: ...
