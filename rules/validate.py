"""Checking a built layout against the variant's tile set."""

from __future__ import annotations

from collections import Counter

from .errors import RulesError
from .i18n import _
from .layout import flatten_stacks, is_whole_set
from .tiles import ALL_CODES, set_composition
from .variants import Variant

_KNOWN = frozenset(ALL_CODES)


def validate_walls(walls, variant: Variant) -> int:
    """Check `walls`: 4 walls of L stacks [top, bottom], codes of the set or None.

    A code may appear at most as often as the set holds it, so a layout without
    nulls is exactly one complete set. Returns the number of null (unread) tiles.
    Raises RulesError naming the first bad place, e.g. ``walls[2][5][0]``.
    """
    return checked_layout(walls, variant)[1]


def checked_layout(walls, variant: Variant) -> tuple[list, int]:
    """`validate_walls`, returning (every tile in wall order, the number of nulls)."""
    flat, nulls, _stacks = checked_stacks(walls, variant)
    return flat, nulls


def checked_stacks(walls, variant: Variant) -> tuple[list, int, list[list]]:
    """`checked_layout`, with a fresh [top, bottom] list of every stack in wall order
    (a deal's record keeps those rather than the caller's lists)."""
    split = flatten_stacks(walls, variant.stacks_per_wall)
    if split is not None and is_whole_set(split[0], variant.tiles):
        return split[0], 0, split[1]
    nulls = _validate(walls, variant)
    if split is None:    # list or tuple subclasses: the walk above accepted them
        stacks = [list(stack) for wall in walls for stack in wall]
        return [code for stack in stacks for code in stack], nulls, stacks
    return split[0], nulls, split[1]


def _validate(walls, variant: Variant) -> int:
    stacks = variant.stacks_per_wall
    if not isinstance(walls, list | tuple):
        raise RulesError(_("walls: expected 4 walls, got {got}").format(got=type(walls).__name__))
    if len(walls) != 4:
        raise RulesError(_("walls: expected 4 walls, got {got}").format(got=len(walls)))
    for p, wall in enumerate(walls):
        if not isinstance(wall, list | tuple) or len(wall) != stacks:
            got = len(wall) if isinstance(wall, list | tuple) else type(wall).__name__
            raise RulesError(_("{where}: expected {stacks} stacks ({variant}, {tiles} tiles), "
                               "got {got}").format(where=f"walls[{p}]", stacks=stacks,
                                                   variant=variant.name,
                                                   tiles=variant.tiles, got=got))
        for k, stack in enumerate(wall):
            if not isinstance(stack, list | tuple) or len(stack) != 2:
                raise RulesError(_("{where}: expected a stack [top, bottom], got {got}").format(
                    where=f"walls[{p}][{k}]", got=repr(stack)))
    limit = set_composition(variant.tiles)
    # Fast path: count everything at once; walk slot by slot only to say where it fails.
    try:
        counts = Counter(code for wall in walls for stack in wall for code in stack)
    except TypeError:       # an unhashable "code" (a list, say): named by the walk below
        counts = Counter({(): 1})
    nulls = counts.pop(None, 0)
    if all(type(code) is str and counts[code] <= limit.get(code, 0) for code in counts):
        return nulls
    _locate(walls, variant, limit)
    raise AssertionError("validate_walls: fast and slow paths disagree")  # engine bug


def _locate(walls, variant: Variant, limit: dict[str, int]) -> None:
    seen: dict[str, int] = {}
    for p, wall in enumerate(walls):
        for k, stack in enumerate(wall):
            for level, code in enumerate(stack):
                if code is None:
                    continue
                where = f"walls[{p}][{k}][{level}]"
                if not isinstance(code, str) or code not in _KNOWN:
                    raise RulesError(_("{where}: unknown tile code {code}").format(
                        where=where, code=repr(code)))
                if code not in limit:
                    raise RulesError(_("{where}: {code} is not in the {tiles}-tile set").format(
                        where=where, code=code, tiles=variant.tiles))
                seen[code] = seen.get(code, 0) + 1
                if seen[code] > limit[code]:
                    raise RulesError(_("{where}: {code} appears {count} times, the set holds "
                                       "{limit}").format(where=where, code=code,
                                                         count=seen[code], limit=limit[code]))
