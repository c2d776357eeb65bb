"""The small interfaces the machines are typed against (Opentrons' protocols style):
the outputs behind the latch, the fault sink, `emit`, and the peers' faces that
break a loop between two machines. A leaf: it imports no machine.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from typing import Any, Protocol

from hal.armed import Capabilities, OnStopped, StopSpec
from mjtable_core.signals import Signal, Value


class Outputs(Protocol):
    """The HAL behind the shutdown latch (`faults/shutdown.py` LatchedOutputs): writes
    and armed stops a latched scope refuses, reads and the backend's own facts."""

    signals: Mapping[str, Signal]
    capabilities: Capabilities
    scopes: set[str]                    # the latched scopes (table, build)
    link_lost: bool

    def read(self, name: str) -> Value: ...
    def write(self, name: str, value: Value, holder: str | None = None) -> None: ...
    def arm(self, spec: StopSpec, on_stopped: OnStopped,
            holder: str | None = None) -> bool: ...
    def safe_state(self, outputs: Collection[str] | None = None) -> None: ...
    def entropy(self) -> tuple[random.Random, str]: ...
    def changed_at(self, name: str) -> float | None: ...
    def link_in_doubt(self) -> bool: ...
    def cut_by(self, name: str) -> list[str]: ...


class Emit(Protocol):
    """Tell every subscriber (API, event log, journal) what happened."""

    def __call__(self, kind: str, **data: Any) -> None: ...


class FaultSink(Protocol):
    """The one fault path (`faults/path.py`): an error stops the table through the
    shutdown path before anything else; returns the fault raised."""

    def __call__(self, fault_id: str, where: str, side: int | None,
                 evidence: dict[str, Any]) -> Any: ...


# A state machine as a peer reads it: its `state`, and the triggers `transitions` adds
# at run time, which no static type names.
Machine = Any


class SideBuild(Protocol):
    """The build as one side's builder sees it (`Build` is one; it sets itself on each
    side as it is built)."""

    def may_feed(self) -> bool: ...
    def side_full(self) -> Any: ...
    def arrival(self, side: Any) -> None: ...
    def extra_tile(self, side: Any, lit: bool = True) -> None: ...


class Throw(Protocol):
    """What the variant asks of the next throw (hands/handoff.py ThrowRequest)."""

    @property
    def thrower_position(self) -> int: ...
    @property
    def dice(self) -> int: ...


class Hands(Protocol):
    """The hand's side of the cycle: the committed deal, the throws, the handoff and
    the next dealer (`hands/handoff.py`, `hands/scoring.py`)."""

    def next_throw(self, dealer: int, throws: list[list[int]]) -> Throw | None: ...
    def commit(self, walls: list[list[list[str | None]]], cycle: int) -> Any: ...
    def hand_off(self, walls: list[list[list[str | None]]], throws: list[list[int]],
                 dealer: int, cycle: int, set_name: str) -> Any: ...
    def faces(self, throw: int, dice: int) -> list[int]: ...
    def secret(self) -> dict[str, Any]: ...
    def restore_secret(self, saved: dict[str, Any]) -> None: ...


def noop(*_: object, **__: object) -> None:
    """A hook nobody has set yet."""
