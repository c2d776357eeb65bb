"""Table coordinates: positions, walls, stacks, ring indices and slots (docs/rules.md).

Positions p = 0..3 run counter-clockwise seen from above; wall p lies in front of
p; its stacks k = 0..L-1 count from the owner's right end; level 0 is the top tile.
The ring index rho(p, k) = ((4 - p) mod 4) * L + k runs clockwise. A *slot* is one
tile place, numbered 2 * rho + level, so slot order is (rho, top), (rho, bottom),
(rho + 1, top), ...
"""

from __future__ import annotations

import functools

SEATS = ("E", "S", "W", "N")


def rho(p: int, k: int, stacks: int) -> int:
    """Ring index of stack k of wall p."""
    return (((4 - p) % 4) * stacks + k) % (4 * stacks)


def stack_of(ring_index: int, stacks: int) -> tuple[int, int]:
    """The [p, k] of a ring index (inverse of rho)."""
    ring_index %= 4 * stacks
    return (4 - ring_index // stacks) % 4, ring_index % stacks


def landing(origin: int, total: int) -> int:
    """Position a dice total lands on, counting from `origin` as 1, counter-clockwise."""
    return (origin + total - 1) % 4


def seat_position(dealer: int, seat: int) -> int:
    """Position of seat index 0..3 (E, S, W, N) when the dealer sits at `dealer`."""
    return (dealer + seat) % 4


@functools.cache
def _coords_table(stacks: int) -> tuple[tuple[int, int, int], ...]:
    return tuple((*stack_of(slot // 2, stacks), slot % 2) for slot in range(8 * stacks))


class Ring:
    """The slots of the built walls and which of them have been taken.

    Orders skip taken slots, so a replacement that reaches the wild indicator's
    stack takes that stack's remaining tile.
    """

    def __init__(self, walls: list, stacks: int) -> None:
        self.stacks = stacks
        self.size = 8 * stacks
        # Flatten in slot order once; slot s holds tile self.tiles[s].
        tiles: list = [None] * self.size
        for p in range(4):
            base = ((4 - p) % 4) * stacks
            for k, (top, bottom) in enumerate(walls[p]):
                tiles[2 * (base + k)] = top
                tiles[2 * (base + k) + 1] = bottom
        self.tiles = tiles
        self.taken = bytearray(self.size)
        self._coords = _coords_table(stacks)

    @classmethod
    def from_layout(cls, flat: list, stacks: int) -> Ring:
        """The ring of tiles already flattened in wall order (`rules.layout.flatten`).

        Wall p's tiles are one block of the ring starting at slot 2·rho(p, 0): wall 0,
        then wall 3, wall 2 and wall 1 in slot order."""
        ring = cls.__new__(cls)
        w = 2 * stacks
        ring.stacks, ring.size = stacks, 4 * w
        ring.tiles = flat[:w] + flat[3 * w:] + flat[2 * w:3 * w] + flat[w:2 * w]
        ring.taken = bytearray(ring.size)
        ring._coords = _coords_table(stacks)
        return ring

    def coords(self, slot: int) -> list[int]:
        """[p, k, level] of a slot."""
        return list(self._coords[slot])

    def coords_of(self, slots: list[int]) -> list[list[int]]:
        """[p, k, level] of each slot."""
        return list(map(list, map(self._coords.__getitem__, slots)))

    def tiles_at(self, slots: list[int]) -> list:
        """The tile in each slot."""
        return list(map(self.tiles.__getitem__, slots))

    def take_all(self, slots: list[int]) -> None:
        """Take every slot in `slots`, none of them taken yet."""
        taken = self.taken
        for slot in slots:
            if taken[slot]:
                raise AssertionError(f"slot {self.coords(slot)} taken twice")  # engine bug
            taken[slot] = 1

    def first_live(self, head: int) -> int | None:
        """The first free slot in live order from stack `head` (None: the wall is empty)."""
        start = 2 * head
        slot = self.taken.find(0, start)
        if slot < 0:
            slot = self.taken.find(0, 0, start)
        return slot if slot >= 0 else None

    def take(self, slot: int) -> str | None:
        if self.taken[slot]:
            raise AssertionError(f"slot {self.coords(slot)} taken twice")  # engine bug
        self.taken[slot] = 1
        return self.tiles[slot]

    def live_order(self, head: int):
        """Free slots in live draw order: (h, top), (h, bottom), (h + 1, top), ..."""
        start = 2 * head
        for i in range(self.size):
            slot = (start + i) % self.size
            if not self.taken[slot]:
                yield slot

    def tail_order(self, tail: int):
        """Free slots in tail order: (r, top), (r, bottom), (r - 1, top), ..."""
        ring = 4 * self.stacks
        for j in range(ring):
            stack = (tail - j) % ring
            for slot in (2 * stack, 2 * stack + 1):
                if not self.taken[slot]:
                    yield slot

    def remaining(self) -> int:
        return self.size - sum(self.taken)
