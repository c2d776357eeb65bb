"""The catalogue: every fault kind by id, gathered from the family modules in their
order (the order the docs' tables and the fault card list them)."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from firmware.faults.kinds import (
    build,
    count,
    dice,
    head,
    lid,
    link,
    plate,
    sensor,
    table,
    tile,
    timing,
)
from firmware.faults.kinds.kind import FaultKind

FAMILIES: tuple[ModuleType, ...] = (lid, head, plate, count, build, tile, dice, link, timing,
                                    sensor, table)


def gathered(families: Iterable[ModuleType]) -> dict[str, FaultKind]:
    """The kinds of `families` (each module's `KINDS`) by id, in order. Ids are stable:
    one written twice is refused."""
    kinds: dict[str, FaultKind] = {}
    for family in families:
        for kind in family.KINDS:
            if kind.id in kinds:
                raise ValueError(f"fault kind {kind.id} written twice (in {family.__name__})")
            kinds[kind.id] = kind
    return kinds


CATALOGUE: dict[str, FaultKind] = gathered(FAMILIES)
