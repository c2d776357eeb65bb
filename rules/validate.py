"""Checking a built layout against the variant's tile set."""

from __future__ import annotations

from .errors import RulesError
from .tiles import ALL_CODES, set_composition
from .variants import Variant

_KNOWN = frozenset(ALL_CODES)


def validate_walls(walls, variant: Variant) -> int:
    """Check `walls`: 4 walls of L stacks [top, bottom], codes of the set or None.

    A code may appear at most as often as the set holds it, so a layout without
    nulls is exactly one complete set. Returns the number of null (unread) tiles.
    Raises RulesError naming the first bad place, e.g. ``walls[2][5][0]``.
    """
    stacks = variant.stacks_per_wall
    if not isinstance(walls, list | tuple):
        raise RulesError(f"walls: expected 4 walls, got {type(walls).__name__}")
    if len(walls) != 4:
        raise RulesError(f"walls: expected 4 walls, got {len(walls)}")
    limit = set_composition(variant.tiles)
    seen: dict[str, int] = {}
    nulls = 0
    for p, wall in enumerate(walls):
        if not isinstance(wall, list | tuple) or len(wall) != stacks:
            got = len(wall) if isinstance(wall, list | tuple) else type(wall).__name__
            raise RulesError(f"walls[{p}]: expected {stacks} stacks ({variant.name}, "
                             f"{variant.tiles} tiles), got {got}")
        for k, stack in enumerate(wall):
            if not isinstance(stack, list | tuple) or len(stack) != 2:
                raise RulesError(f"walls[{p}][{k}]: expected a stack [top, bottom], "
                                 f"got {stack!r}")
            for level, code in enumerate(stack):
                if code is None:
                    nulls += 1
                    continue
                where = f"walls[{p}][{k}][{level}]"
                if not isinstance(code, str) or code not in _KNOWN:
                    raise RulesError(f"{where}: unknown tile code {code!r}")
                if code not in limit:
                    raise RulesError(f"{where}: {code} is not in the {variant.tiles}-tile set")
                seen[code] = seen.get(code, 0) + 1
                if seen[code] > limit[code]:
                    raise RulesError(f"{where}: {code} appears {seen[code]} times, the "
                                     f"set holds {limit[code]}")
    return nulls
