"""What the diagnosis wing uses of the table: the ranking of suspects, the guided
checks, the flight recorder, wear and the silent-sensor watch are written against
these Protocols, not the controller.

The controller hands itself to them and satisfies these by shape; this module imports
nothing that imports it back, so the wing and the composition root form no import
cycle. `Evidence` is the read-only view a suspect's rule ranks by; `Watched` what a
listener attaches to; `Checked` what a guided check may read, hold and move.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from firmware.faults.kinds import Fault
    from firmware.faults.shutdown import LatchedOutputs
    from mjtable_core.clock import Clock
    from mjtable_core.config import Config, TimingSection
    from mjtable_core.geometry import Geometry
    from mjtable_core.signals import Value

# A state machine: its `state`, its own fields (a side's `counted`, a plate's
# `sensor`), and the triggers `transitions` adds at run time.
Machine = Any
Watcher = Callable[[str, "Value"], None]
Subscriber = Callable[[dict[str, Any]], None]


class SensorSuspicion(Protocol):
    """The face-up tracker (recurrence.py), as a rule asks it."""

    def sensor_suspected(self, fault: Fault, ctl: Evidence) -> bool: ...


class Evidence(Protocol):
    """What a fault's suspects are ranked by: the sides' counts, the configuration,
    the inputs as they read now, the face-up record."""

    @property
    def config(self) -> Config: ...
    @property
    def geometry(self) -> Geometry: ...
    @property
    def hal(self) -> LatchedOutputs: ...
    @property
    def sides(self) -> Sequence[Machine]: ...
    @property
    def face_up(self) -> SensorSuspicion: ...


class Learned(Protocol):
    """The supervisor's learned timings and suspicions (machines/supervisor.py)."""

    runs: dict[str, deque[float]]
    window: int
    misses: dict[str, int]
    degraded: set[str]
    suspects: set[str]
    _slow: dict[str, deque[bool]]

    def learned(self, mechanism: str) -> float: ...
    def learned_build(self) -> float | None: ...
    def export(self) -> dict[str, Any]: ...


class Outputs(Protocol):
    watchers: list[Watcher]


class Watched(Protocol):
    """What a listener (recorder, wear, silent sensors) attaches to and reads."""

    faults: list[Fault]

    @property
    def config(self) -> Config: ...
    @property
    def geometry(self) -> Geometry: ...
    @property
    def hal(self) -> LatchedOutputs: ...
    @property
    def outputs(self) -> Outputs: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def supervisor(self) -> Learned: ...
    @property
    def cycle(self) -> Machine: ...
    @property
    def build(self) -> Machine: ...
    @property
    def subscribers(self) -> list[Subscriber]: ...
    @property
    def input_watchers(self) -> list[Watcher]: ...

    def edge_time(self, name: str) -> float: ...
    def emit(self, kind: str, **data: Any) -> None: ...
    def fault(self, fault_id: str, where: str, side: int | None,
              evidence: dict[str, Any]) -> Fault: ...


class Holding(Protocol):
    """Who holds which mechanism (machines/owner.py): a check holds what it moves."""

    def user(self, mechanism: str) -> str | None: ...
    def acquire(self, holder: str, mechanisms: list[str], why: str) -> None: ...
    def release(self, holder: str) -> None: ...


class Machines(Protocol):
    """The table's machines by name, as the wings read them (their states, status)."""

    @property
    def cycle(self) -> Machine: ...
    @property
    def build(self) -> Machine: ...
    @property
    def lid(self) -> Machine: ...
    @property
    def dice(self) -> Machine: ...
    @property
    def sides(self) -> Sequence[Machine]: ...
    @property
    def plates(self) -> Sequence[Machine]: ...


class Checked(Evidence, Machines, Protocol):
    """What a guided check reads, holds and moves, besides the evidence."""

    faults: list[Fault]

    @property
    def timing(self) -> TimingSection: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def owner(self) -> Holding: ...
    @property
    def supervisor(self) -> Learned: ...
    @property
    def input_watchers(self) -> list[Watcher]: ...

    def status(self) -> dict[str, Any]: ...
