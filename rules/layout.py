"""The built walls as one flat list: shape checked once, read by validation, the ring and
the commitment alike.

Wall order is p = 0..3, stack k = 0..L-1, top then bottom: the order of the
commitment's layout (`commit.py`). Everything here runs at C speed (`map`, `chain`,
`sorted`); when a check fails, the callers' slot-by-slot walks say where and why.
"""

from __future__ import annotations

import functools
from itertools import chain

from .tiles import set_composition

_SEQUENCES = frozenset({list, tuple})


def flatten(walls, stacks: int) -> list | None:
    """Every tile in wall order, or None when `walls` is not 4 walls of `stacks` stacks
    [top, bottom] (the caller then finds the first bad place)."""
    split = flatten_stacks(walls, stacks)
    return split[0] if split is not None else None


def flatten_stacks(walls, stacks: int) -> tuple[list, list[list]] | None:
    """`flatten`, with a fresh [top, bottom] list of every stack in wall order."""
    if type(walls) not in _SEQUENCES or len(walls) != 4:
        return None
    if not set(map(type, walls)) <= _SEQUENCES or set(map(len, walls)) != {stacks}:
        return None
    every_stack = list(chain.from_iterable(walls))
    if not set(map(type, every_stack)) <= _SEQUENCES or set(map(len, every_stack)) != {2}:
        return None
    copies = list(map(list, every_stack))
    return list(chain.from_iterable(copies)), copies


@functools.cache
def _sorted_set(tiles: int) -> list[str]:
    return sorted(code for code, n in set_composition(tiles).items() for _ in range(n))


def is_whole_set(flat: list, tiles: int) -> bool:
    """Whether `flat` is exactly one complete `tiles`-tile set, every tile read.

    The common case of a table with readers, checked by one sort; anything else (nulls,
    a wrong or foreign code) goes the counting way."""
    if len(flat) != tiles:
        return False
    try:
        return sorted(flat) == _sorted_set(tiles)
    except TypeError:       # a null or a code that is not a string: sorted cannot compare
        return False
