"""Layouts for the rules tests: random shuffles and hand-placed examples."""

from __future__ import annotations

import random

from rules import load_variant
from rules.ring import stack_of
from rules.tiles import set_composition


def full_set(tiles: int) -> list[str]:
    return [code for code, n in set_composition(tiles).items() for _ in range(n)]


def to_walls(sequence: list, stacks: int) -> list:
    """Walls from tiles listed in wall order: p = 0..3, k = 0..L-1, top then bottom."""
    return [[[sequence[2 * (p * stacks + k)], sequence[2 * (p * stacks + k) + 1]]
             for k in range(stacks)] for p in range(4)]


def random_walls(variant: str, rng: random.Random, null_rate: float = 0.0) -> list:
    v = load_variant(variant)
    tiles: list = full_set(v.tiles)
    rng.shuffle(tiles)
    if null_rate:
        tiles = [None if rng.random() < null_rate else t for t in tiles]
    return to_walls(tiles, v.stacks_per_wall)


def random_throws(variant: str, rng: random.Random) -> list[list[int]]:
    v = load_variant(variant)
    throws = [[rng.randint(1, 6) for _ in range(v.dice)] for _ in range(v.break_throws)]
    if v.wild == "hun":
        throws.append([rng.randint(1, 6) for _ in range(v.wild_dice)])
    return throws


def placed_walls(variant: str, head_ring: int, placements: dict[tuple, str]) -> list:
    """Walls with `placements` {(p, k, level): code}; the rest of the set fills the live
    order from ring index `head_ring` with plain tiles, the variant's other flowers
    kept well away from both the deal and the tail (from the 96th live slot)."""
    v = load_variant(variant)
    stacks = v.stacks_per_wall
    rest = full_set(v.tiles)
    for code in placements.values():
        rest.remove(code)
    plain = [t for t in rest if t not in v.flowers]
    flowers = [t for t in rest if t in v.flowers]
    fill = plain[:96] + flowers + plain[96:]
    walls: list = [[[None, None] for _ in range(stacks)] for _ in range(4)]
    for (p, k, level), code in placements.items():
        walls[p][k][level] = code
    ring = 4 * stacks
    it = iter(fill)
    for i in range(ring):
        p, k = stack_of(head_ring + i, stacks)
        for level in (0, 1):
            if (p, k, level) not in placements:
                walls[p][k][level] = next(it)
    return walls


def at(walls, p: int, k: int, level: int):
    return walls[p][k][level]


def stacks_tiles(walls, coords: list[tuple[int, int]], singles=()) -> list:
    """Tiles of whole stacks taken top then bottom, in the listed order, then the
    single slots (p, k, level)."""
    whole = [walls[p][k][level] for p, k in coords for level in (0, 1)]
    return whole + [walls[p][k][level] for p, k, level in singles]
