"""What the API uses of the table: the server, its method groups and `attach_api` are
written against this Protocol, not the controller.

The daemon hands the controller to them and it satisfies this by shape; this module
imports nothing that imports it back, so the API and the composition root form no
import cycle. The API reads the status picture, the faults, the hands and the inputs,
acts through the clearing and the e-stop, runs guided checks (diagnosis/table.py),
reads the resume plan (faults/table.py) and listens to the event stream
(state/table.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from firmware.diagnosis.table import Checked
from firmware.faults.table import Parked
from firmware.state.table import Listened

if TYPE_CHECKING:
    from firmware.diagnosis.wear import Wear
    from firmware.faults.kinds import Fault
    from firmware.machines.maintenance import Maintenance


class Hands(Protocol):
    """The handoff (hands/handoff.py) as the API shows it: commitments, never the
    tiles of a hand in play."""

    commitment: str | None
    count: int
    records: list[dict[str, Any]]

    def ended(self, record: dict[str, Any]) -> bool: ...


class Scores(Protocol):
    def score(self, seat: Any, result: dict[str, Any], in_play: bool) -> dict[str, Any]: ...


class Table(Checked, Parked, Listened, Protocol):
    """The table as the API serves it."""

    estopped: bool
    refeed_hold: Fault | None
    # The booking gate (service/gate.py): why no new hand may start, or None.
    gate_closed: Callable[[], str | None]

    @property
    def handoff(self) -> Hands: ...
    @property
    def scoring(self) -> Scores: ...
    @property
    def wear(self) -> Wear: ...

    def emit(self, kind: str, **data: Any) -> None: ...
    def save_journal(self, clean: bool = False) -> None: ...
    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault: ...
    def clear_fault(self, fault: Fault, by: str, refed: bool = False) -> None: ...
    def estop(self, by: str | None = None) -> None: ...
    def release_estop(self, by: str) -> None: ...
    def gate_opened(self) -> None: ...
    def maintenance(self) -> Maintenance: ...
