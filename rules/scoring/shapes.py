"""Ways to read standing tiles as sets and a pair, with wild tiles standing in.

For the variants scored here (Guangdong, Tianjin, Fuzhou). A group is
``(kind, first, stand_ins)``: kind ``chow``, ``pung`` or ``pair``; the index of its
lowest tile (0-8 characters, 9-17 dots, 18-26 bamboo, 27-30 winds, 31-33 dragons; -1
for a group made of wild tiles alone); and how many wild tiles stand in it. A wild tile
may also be itself: the caller counts wild tiles it wants as themselves as ordinary tiles.
"""

from __future__ import annotations

from functools import lru_cache

from ..tiles import HONOURS, SUITED

CODES = SUITED + HONOURS
INDEX = {code: i for i, code in enumerate(CODES)}
Group = tuple[str, int, int]


def counts_of(tiles) -> tuple[int, ...]:
    """34 counts, in CODES order."""
    out = [0] * 34
    for code in tiles:
        out[INDEX[code]] += 1
    return tuple(out)


def arrangements(counts: tuple[int, ...], wilds: int, sets: int,
                 pair: bool = True) -> frozenset[tuple[Group, ...]]:
    """Every reading of `counts` plus `wilds` stand-ins as `sets` sets and (when `pair`)
    one pair, each a sorted tuple of groups; empty when there is none."""
    return _arrange(counts, wilds, sets, not pair)


@lru_cache(maxsize=65536)
def _arrange(c: tuple[int, ...], w: int, sets: int, pair_done: bool) -> frozenset:
    i = next((k for k in range(34) if c[k]), 34)
    if i == 34:
        # Only stand-ins are left: they must make up the missing groups by themselves.
        if w != 3 * sets + (0 if pair_done else 2):
            return frozenset()
        groups = (("pung", -1, 3),) * sets + (() if pair_done else (("pair", -1, 2),))
        return frozenset({tuple(sorted(groups))})
    out: set[tuple[Group, ...]] = set()

    def take(group: Group, rest: tuple[int, ...], left: int, sets_left: int, done: bool):
        for tail in _arrange(rest, left, sets_left, done):
            out.add(tuple(sorted((group, *tail))))

    lst = list(c)
    # Pung of tile i with r real copies.
    if sets:
        for real in range(min(3, c[i]), 0, -1):
            if 3 - real <= w:
                lst[i] -= real
                take(("pung", i, 3 - real), tuple(lst), w - (3 - real), sets - 1, pair_done)
                lst[i] += real
    if not pair_done:
        for real in range(min(2, c[i]), 0, -1):
            if 2 - real <= w:
                lst[i] -= real
                take(("pair", i, 2 - real), tuple(lst), w - (2 - real), sets, True)
                lst[i] += real
    # Chows holding tile i as their lowest real tile; lower members are stand-ins.
    if sets and i < 27:
        suit_start, n = i - i % 9, i % 9
        for start in range(max(0, n - 2), min(n, 6) + 1):
            below = n - start                       # stand-ins under tile i
            members = [suit_start + start + k for k in range(below + 1, 3)]
            yield_from_chow(c, w, sets, pair_done, i, suit_start + start, below, members,
                            out)
    return frozenset(out)


def yield_from_chow(c, w, sets, pair_done, i, first, below, members, out) -> None:
    """Add the readings with a chow from `first` holding tile i, trying each higher
    member as the real tile or as a stand-in."""
    lst = list(c)
    lst[i] -= 1

    def place(k: int, used: int) -> None:
        if used > w:
            return
        if k == len(members):
            for tail in _arrange(tuple(lst), w - used, sets - 1, pair_done):
                out.add(tuple(sorted((("chow", first, used), *tail))))
            return
        j = members[k]
        if lst[j]:
            lst[j] -= 1
            place(k + 1, used)
            lst[j] += 1
        place(k + 1, used + 1)

    place(0, below)


def tile(index: int) -> str:
    return CODES[index]


def clear_cache() -> None:
    """Forget the readings remembered so far (a bench measures them cold)."""
    _arrange.cache_clear()
