"""Physical tiles: identity, which set they belong to, and their magnet."""

from __future__ import annotations

from dataclasses import dataclass

from core.geometry import REFERENCE

SUITS = ("W", "B", "T")
COPIES = 4      # the game's tile set: each suited and honour tile four times


def set_codes(tiles: int) -> list[str]:
    """The codes of one set: 136 without flowers, 144 with H1–H8."""
    codes = [f"{s}{n}" for s in SUITS for n in range(1, 10) for _ in range(COPIES)]
    codes += [f"F{n}" for n in range(1, 5) for _ in range(COPIES)]
    codes += [f"J{n}" for n in range(1, 4) for _ in range(COPIES)]
    if tiles == 144:
        codes += [f"H{n}" for n in range(1, 9)]
    if len(codes) != tiles:
        raise ValueError(f"no {tiles}-tile set")
    return codes


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
