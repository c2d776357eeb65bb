"""Tile codes, set composition, kinds and the wild-tile successor rule."""

from __future__ import annotations

from collections import Counter

SUITS = ("W", "B", "T")  # characters 万, dots 饼/筒, bamboo 条
WINDS = ("F1", "F2", "F3", "F4")  # 东 南 西 北
DRAGONS = ("J1", "J2", "J3")  # 中 发 白
FLOWERS = tuple(f"H{n}" for n in range(1, 9))  # 春夏秋冬 梅兰竹菊
SUITED = tuple(f"{s}{n}" for s in SUITS for n in range(1, 10))
HONOURS = WINDS + DRAGONS

ALL_CODES = SUITED + HONOURS + FLOWERS
SET_SIZES = (136, 144)


def set_composition(tiles: int) -> dict[str, int]:
    """How many copies of each code a set of `tiles` tiles holds."""
    if tiles not in SET_SIZES:
        raise ValueError(f"no {tiles}-tile set (known: 136, 144)")
    counts = {code: 4 for code in SUITED + HONOURS}
    if tiles == 144:
        counts.update({code: 1 for code in FLOWERS})
    return counts


def kind(code: str) -> str:
    """The kind used by the audit: W, B, T (suits), F (winds), J (dragons), H (flowers)."""
    return code[0]


KINDS = ("W", "B", "T", "F", "J", "H")

# Next tile for Tianjin 混: 9→1 within a suit, E→S→W→N→E, 中→发→白→中.
_CYCLE_LENGTH = {"W": 9, "B": 9, "T": 9, "F": 4, "J": 3, "H": 8}


def successor(code: str) -> str:
    """The tile after `code` in its cycle (the second wild tile of Tianjin 混)."""
    letter, number = code[0], int(code[1:])
    return f"{letter}{number % _CYCLE_LENGTH[letter] + 1}"


def composition(codes) -> Counter:
    """Counts of the known (non-null) codes in an iterable."""
    return Counter(code for code in codes if code is not None)
