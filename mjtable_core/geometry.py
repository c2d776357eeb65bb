"""The table's geometry: how many sides (mouths) it has, which sets it circulates and
how many tiles and stacks each side holds. The one place these numbers live.

A four-mouth, two-set table has a wall builder (conveyor, stacking head, lift plate)
at each of its four sides and two physical sets, "A" and "B": one in play while the
other is built under the table. Everything that loops over the sides, names a set or
divides a set between the walls asks a `Geometry`, never a literal.

The number of *players* (four) is a rule of the game, not geometry: rules/ deals for
four seats whatever builds the walls (docs/design.md, "Table geometry").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    """What a table model is built as: its mouths and its sets."""

    sides: int
    sets: tuple[str, ...]


# `[table] model` accepts exactly these. A new shape is added here, then taught to the
# machines that do not follow from the numbers alone (docs/design.md).
MODELS: dict[str, Shape] = {
    "four-mouth-two-set": Shape(sides=4, sets=("A", "B")),
}
REFERENCE_MODEL = "four-mouth-two-set"


@dataclass(frozen=True)
class Geometry:
    """One table's sides, sets and walls. Build it from `[table]` with `from_table`."""

    model: str = REFERENCE_MODEL
    tiles: int = 144            # tiles per set

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown table model {self.model!r} "
                             f"(known: {', '.join(MODELS)})")

    @classmethod
    def from_table(cls, table: object) -> Geometry:
        """The geometry of a `[table]` config section (anything with model and tiles)."""
        return cls(model=getattr(table, "model"), tiles=getattr(table, "tiles"))  # noqa: B009

    @property
    def shape(self) -> Shape:
        return MODELS[self.model]

    @property
    def side_count(self) -> int:
        """How many sides (mouths, wall builders) the table has."""
        return self.shape.sides

    @property
    def sides(self) -> range:
        """The side numbers 0 … side_count-1, counter-clockwise from position 0."""
        return range(self.shape.sides)

    @property
    def sets(self) -> tuple[str, ...]:
        """The physical sets' names, in the order they are first used."""
        return self.shape.sets

    @property
    def first_set(self) -> str:
        """The set on the shuffle disc at first power-on."""
        return self.shape.sets[0]

    def next_set(self, name: str | None) -> str:
        """The set built after `name` (the one after the set in play)."""
        sets = self.shape.sets
        if name not in sets:
            return sets[0]
        return sets[(sets.index(name) + 1) % len(sets)]

    def side_after(self, side: int, steps: int = 1) -> int:
        """The side `steps` places counter-clockwise from `side`."""
        return (side + steps) % self.shape.sides

    @property
    def tiles_per_side(self) -> int:
        """Tiles one side's wall holds (a set split evenly between the sides)."""
        return self.tiles // self.shape.sides

    @property
    def stacks_per_side(self) -> int:
        """Stacks of two in one side's wall."""
        return self.tiles_per_side // 2

    def stacks_for(self, tiles: int) -> float:
        """Stacks per side a set of `tiles` needs (not whole when it does not fit)."""
        return tiles / (2 * self.shape.sides)


REFERENCE = Geometry()
"""Today's reference table: four mouths, two 144-tile sets."""
