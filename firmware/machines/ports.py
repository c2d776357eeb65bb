"""What a machine is handed: the table's ports and its named peers, never a hub.

A machine's constructor takes `Ports` and its named peers (`Build(ports, sides, lid)`,
`Cycle(ports, lid, plates, build, dice, owner, hands)`) and keeps, as attributes, the
few it uses on every edge (`self.hal = ports.outputs`): no edge pays a lookup through
a hub. Where two machines answer each other (the lid and the cycle, a side and its
build, a plate and the cycle), the one built first has a hook the other sets when it
is built, or holds the other through a small Protocol (`protocols.py`): never an
import back.

The composition root (`compose_table`) builds the ports, the machines and the parts
they share, and sets the hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from firmware.machines.protocols import Emit, FaultSink, Outputs
from mjtable_core.clock import Clock
from mjtable_core.config import Config, TimingSection
from mjtable_core.geometry import Geometry

if TYPE_CHECKING:
    from firmware.machines.motion import Motions
    from firmware.machines.supervisor import Supervisor
    from firmware.machines.watch import Watch


def _open() -> str | None:
    return None


@dataclass(eq=False)
class Marks:
    """The table-wide marks the fault path and the technician's work set and the
    machines read: one object, shared, so every reader sees one truth."""

    tampered: bool = False          # latched by case_open; only a technician clears it
    service_mode: bool = False      # the case may be opened in service mode
    estopped: bool = False
    halted_by: str | None = None    # while a halt parks the machines (events)
    refeed_hold: Any = None         # the fault that holds the build for a refeed
    # The booking gate (firmware/service/gate.py): why no new hand may start, or None.
    gate_closed: Callable[[], str | None] = field(default=_open)


@dataclass(frozen=True, eq=False)
class Ports:
    """Everything a machine may touch that is not a peer machine."""

    outputs: Outputs
    clock: Clock
    config: Config
    emit: Emit
    fault: FaultSink
    on_error: Callable[[Any], None]     # a machine callback raised: the fault path
    edge_time: Callable[[str], float]   # when an input changed (the board's stamp)
    marks: Marks
    supervisor: Supervisor
    motions: Motions

    @property
    def timing(self) -> TimingSection:
        return self.config.timing

    @property
    def geometry(self) -> Geometry:
        return self.config.geometry

    @property
    def watch(self) -> Watch:
        return self.supervisor.watch


def edge_clock(outputs: Outputs, clock: Clock) -> Callable[[str], float]:
    """`edge_time`: when input `name` changed: the HAL's own time of the change (a HAL
    behind a link knows it; an edge retransmitted over a noisy cable arrives late),
    else now. Declared by the backend (hal/armed.py Capabilities), never probed."""
    if not outputs.capabilities.board_time:
        return lambda name: clock.now()
    changed_at = outputs.changed_at

    def edge_time(name: str) -> float:
        at = changed_at(name)
        return clock.now() if at is None else at
    return edge_time
