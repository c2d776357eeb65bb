"""What one variant is made of: its deal row, its dealer rule, its scorer and its
scoring parameters (each module in rules/variants/ fills one `VariantRules`).

It sits below everything that names a variant: the scorers (rules/scoring/) build on it,
the variants fill it in, and the registry lists them (docs/design.md, the rules' layers).

The deal row (`Variant`) is docs/rules.md's table column; a venue overrides it in
`[rules.overrides]`. The scoring parameters are a dataclass whose fields carry their
limits (`option(minval=, maxval=, choices=)`); a declared win's `params` overrides them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mjtable_core.i18n import N_
from mjtable_core.schema import Invalid, option

from .i18n import _
from .tiles import ALL_CODES, FLOWERS, SET_SIZES, set_composition

DEAL_PATTERNS = ("13+jump", "16+1")
BREAK_WALLS = ("dice", "dealer")
REPLACEMENTS = ("depth_first", "round_robin", "none")
WILDS = ("none", "hun", "gold")


@dataclass(frozen=True)
class Variant:
    """Parameters of one variant's deal (docs/rules.md, "Variants and the choices made").

    name: variant id.
    tiles: set size, 136 or 144.
    stacks_per_wall: L, stacks per wall (tiles / 8).
    dice: dice per break throw.
    break_throws: 1 = the dealer throws once; 2 = the dealer throws S1, then the
        player at (d + S1 - 1) mod 4 throws S2 (MCR) and C = S1 + S2.
    break_wall: "dice" = the wall the first throw's total lands on, counted from the
        dealer; "dealer" = the dealer's own wall (Tianjin).
    head_offset: first dealt stack h = tail stack r + head_offset.
    deal: "13+jump" (4x3 + 跳牌) or "16+1" (4x4 + one to the dealer).
    flowers: codes set aside and replaced from the tail.
    replacement: "depth_first", "round_robin", or "none" (no flowers).
    wild: "none", "hun" (Tianjin 混) or "gold" (Fuzhou 金).
    wild_dice: dice of the 混 throw by the dealer's 对家.
    reserve: tiles left unplayed at the end of the wall (counted in live_remaining).
    """

    # Each parameter's limits are its override's schema (mjtable_core.schema); `name` is not one.
    name: str
    tiles: int = option(choices=SET_SIZES)
    stacks_per_wall: int = option(minval=17, maxval=18)
    dice: int = option(minval=1, maxval=3)
    break_throws: int = option(minval=1, maxval=2)
    break_wall: str = option(choices=BREAK_WALLS)
    head_offset: int = option(minval=0, maxval=1)
    deal: str = option(choices=DEAL_PATTERNS)
    flowers: tuple[str, ...] = option(choices=ALL_CODES, shown=N_("a tile code"))
    replacement: str = option(choices=REPLACEMENTS)
    wild: str = option(choices=WILDS)
    wild_dice: int = option(minval=1, maxval=3)
    reserve: int = option(minval=0, maxval=64)

    def params(self) -> dict:
        """The effective parameters as a JSON-ready dict (without the name)."""
        out = {name: getattr(self, name) for name in PARAMETERS}
        out["flowers"] = list(self.flowers)
        return out

    def check(self) -> None:
        """Parameters that are each valid but do not fit together."""
        if len(set(self.flowers)) != len(self.flowers):
            raise Invalid("flowers", _("a code is listed twice"))
        if self.stacks_per_wall * 8 != self.tiles:
            raise Invalid("stacks_per_wall", _(
                "{stacks} stacks per wall do not hold {tiles} tiles (use {use})").format(
                    stacks=self.stacks_per_wall, tiles=self.tiles, use=self.tiles // 8))
        in_set = set_composition(self.tiles)
        for code in self.flowers:
            if code not in in_set:
                raise Invalid("flowers", _("{code} is not in the {tiles}-tile set").format(
                    code=code, tiles=self.tiles))
        if self.tiles == 144 and not set(FLOWERS) <= set(self.flowers):
            raise Invalid("flowers", _("a 144-tile set needs H1–H8 among the flowers"))
        if self.flowers and self.replacement == "none":
            raise Invalid("replacement", _("'none' but the variant has flowers "
                                           "(allowed: depth_first, round_robin)"))
        if not self.flowers and self.replacement != "none":
            raise Invalid("replacement", _("{got} but the variant has no flowers "
                                           "(allowed: none)").format(
                                               got=repr(self.replacement)))

    # Every deal looks its variant's tables up (rules/deal.py): hash the fields once,
    # not on every lookup. A frozen dataclass keeps the generated __eq__.
    def __hash__(self) -> int:
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash(dataclasses.astuple(self))

    @property
    def hand_size(self) -> int:
        """Tiles in a non-dealer's hand after the deal (the dealer has one more)."""
        return 13 if self.deal == "13+jump" else 16


PARAMETERS = tuple(f.name for f in dataclasses.fields(Variant) if f.name != "name")

# What most rows share; a variant's module spells out only where it differs.
BASE_DEAL = dict(dice=2, break_throws=1, break_wall="dice", head_offset=1, deal="13+jump",
                 wild="none", wild_dice=2, reserve=0)


@dataclass(frozen=True)
class DealerRule:
    """Whether the dealer deals again after his own win and after a drawn hand."""

    after_win: bool
    after_draw: bool


@dataclass(frozen=True)
class Fines:
    """What a failed declaration of a win costs the declarer, paid to each other player.

    wrong: 错和 (a win below the minimum, or the wrong tile while waiting: 和错牌).
    false: 诈和 (one tile short of waiting).
    disqualifies: 有意诈和 (two or more tiles short) disqualifies the player.
    self_drawn_after: the fined player may still win this hand by self-draw; False:
        停和, no win at all until the hand ends.
    """

    wrong: int
    false: int
    disqualifies: bool
    self_drawn_after: bool = False


@dataclass(frozen=True)
class VariantRules:
    """One variant, whole: everything the engine knows of it, written once.

    name: the id in `[rules] variant` and a declared win's "variant".
    order: where it is listed (known: mcr, jingji, ...).
    deal: the deal row.
    dealer: who deals the next hand.
    score: the function scoring a checked declared win, `score(declared, params)`.
    params: the dataclass of its scoring parameters (None: the rule book fixes every value
        and a declared win's `params` is refused).
    keys: declared-win keys of this variant alone (refused in the others).
    fines: what a failed declaration costs (None: the rule book fines nothing).
    score_drawn: the function scoring a drawn hand where the rule book pays on a draw,
        `score_drawn(drawn, params)` (None: nobody pays).
    """

    name: str
    order: int
    deal: Variant
    dealer: DealerRule
    score: Callable[..., Any]
    params: type | None = None
    keys: frozenset[str] = frozenset()
    fines: Fines | None = None
    score_drawn: Callable[..., Any] | None = None

    @property
    def wild_key(self) -> str | None:
        """The declared win's key for the turned wild tile (Tianjin "hun", Fuzhou "gold")."""
        return None if self.deal.wild == "none" else self.deal.wild

