"""Physical tiles: identity, which set they belong to, and their magnet."""

from __future__ import annotations

from dataclasses import dataclass

SUITS = ("W", "B", "T")


def set_codes(tiles: int) -> list[str]:
    """The codes of one set: 136 without flowers, 144 with H1–H8."""
    codes = [f"{s}{n}" for s in SUITS for n in range(1, 10) for _ in range(4)]
    codes += [f"F{n}" for n in range(1, 5) for _ in range(4)]
    codes += [f"J{n}" for n in range(1, 4) for _ in range(4)]
    if tiles == 144:
        codes += [f"H{n}" for n in range(1, 9)]
    if len(codes) != tiles:
        raise ValueError(f"no {tiles}-tile set")
    return codes


@dataclass
class Tile:
    id: int
    code: str
    set_name: str          # "A" or "B": the physical set (back colour)
    magnet: str = "ok"     # "ok", "weak" (arrives face up), "dead" (never picked)


def make_sets(tiles: int) -> list[Tile]:
    """Two physical sets; ids 0..n-1 are set A, n..2n-1 set B."""
    codes = set_codes(tiles)
    return [Tile(i + offset, code, name)
            for offset, name in ((0, "A"), (tiles, "B"))
            for i, code in enumerate(codes)]
