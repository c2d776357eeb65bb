"""Physical tiles: identity, which set they belong to, and their magnet."""

from __future__ import annotations

from dataclasses import dataclass

from mjtable_core.geometry import REFERENCE
from rules.tiles import set_composition


def set_codes(tiles: int) -> list[str]:
    """The codes of one set, each copy once (136 without flowers, 144 with H1–H8):
    the rules engine's set composition, laid out as physical tiles."""
    return [code for code, copies in set_composition(tiles).items() for _ in range(copies)]


@dataclass
class Tile:
    id: int
    code: str
    set_name: str          # the physical set (back colour): one of Geometry.sets
    magnet: str = "ok"     # "ok", "weak" (arrives face up), "dead" (never picked)


def make_sets(tiles: int, sets: tuple[str, ...] = REFERENCE.sets) -> list[Tile]:
    """The physical sets: ids 0..n-1 are the first set, n..2n-1 the next, and so on."""
    codes = set_codes(tiles)
    return [Tile(i + k * tiles, code, name)
            for k, name in enumerate(sets)
            for i, code in enumerate(codes)]
