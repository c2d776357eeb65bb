"""The five variants as data, and venue overrides of their parameters.

Each column of docs/rules.md's variant table is one `Variant`. A venue may override any
parameter (the TOML ``[rules.overrides]`` table); every override is checked for
name, type and range, and the result for consistency, so a typo is an error and
never a silently different deal.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from .errors import RulesError
from .i18n import _
from .tiles import ALL_CODES, FLOWERS, HONOURS, SET_SIZES, set_composition

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

    name: str
    tiles: int
    stacks_per_wall: int
    dice: int
    break_throws: int
    break_wall: str
    head_offset: int
    deal: str
    flowers: tuple[str, ...]
    replacement: str
    wild: str
    wild_dice: int
    reserve: int

    def params(self) -> dict:
        """The effective parameters as a JSON-ready dict (without the name)."""
        out = {name: getattr(self, name) for name in PARAMETERS}
        out["flowers"] = list(self.flowers)
        return out

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


_H = FLOWERS
_BASE = dict(dice=2, break_throws=1, break_wall="dice", head_offset=1, deal="13+jump",
             wild="none", wild_dice=2, reserve=0)

VARIANTS: dict[str, Variant] = {
    "mcr": Variant(name="mcr", tiles=144, stacks_per_wall=18, flowers=_H,
                   replacement="depth_first", **{**_BASE, "break_throws": 2}),
    # Seed 001: "如7即为从对家的第七墩抓牌" - the dealer grabs the 7th stack itself.
    "jingji": Variant(name="jingji", tiles=144, stacks_per_wall=18, flowers=_H,
                      replacement="depth_first", **{**_BASE, "head_offset": 0}),
    "guangdong": Variant(name="guangdong", tiles=136, stacks_per_wall=17, flowers=(),
                         replacement="none", **{**_BASE, "dice": 3}),
    # Seed 001: "从自己面前的牌墩从右向左数，数到'两个筛子点数之和+1'那一墩开始拿牌".
    "tianjin": Variant(name="tianjin", tiles=136, stacks_per_wall=17, flowers=(),
                       replacement="none",
                       **{**_BASE, "break_wall": "dealer", "wild": "hun"}),
    "fuzhou": Variant(name="fuzhou", tiles=144, stacks_per_wall=18, flowers=_H + HONOURS,
                      replacement="round_robin",
                      **{**_BASE, "deal": "16+1", "wild": "gold", "reserve": 18}),
}

# name -> (allowed values or (min, max) for ints, one-line description of what is allowed)
_CHOICES: dict[str, tuple] = {
    "tiles": SET_SIZES,
    "deal": DEAL_PATTERNS,
    "break_wall": BREAK_WALLS,
    "replacement": REPLACEMENTS,
    "wild": WILDS,
}
_RANGES: dict[str, tuple[int, int]] = {
    "stacks_per_wall": (17, 18),
    "dice": (1, 3),
    "break_throws": (1, 2),
    "head_offset": (0, 1),
    "wild_dice": (1, 3),
    "reserve": (0, 64),
}
PARAMETERS = tuple(f.name for f in dataclasses.fields(Variant) if f.name != "name")


def load_variant(name: str, overrides: dict | None = None) -> Variant:
    """The variant `name` with a venue's `overrides` applied.

    Raises RulesError for an unknown variant, an unknown parameter, a wrong type,
    a value out of range, or parameters that contradict each other.
    """
    if not isinstance(name, str) or name not in VARIANTS:
        raise RulesError(_("variant: unknown {name} (known: {known})").format(
            name=repr(name), known=", ".join(VARIANTS)))
    base = VARIANTS[name]
    if not overrides:
        return base
    if not isinstance(overrides, dict):
        raise RulesError(_("overrides: expected a table of parameters, got {got}").format(
            got=_type(overrides)))
    changes: dict = {}
    for key, value in overrides.items():
        changes[key] = _check_parameter(key, value)
    if "tiles" in changes and "stacks_per_wall" not in changes:
        changes["stacks_per_wall"] = changes["tiles"] // 8
    if "stacks_per_wall" in changes and "tiles" not in changes:
        changes["tiles"] = changes["stacks_per_wall"] * 8
    variant = dataclasses.replace(base, **changes)
    check_consistency(variant)
    return variant


def _type(value) -> str:
    return type(value).__name__


def _check_parameter(key, value):
    where = f"overrides.{key}"
    if key not in PARAMETERS:
        raise RulesError(_("{where}: unknown parameter (known: {known})").format(
            where=where, known=", ".join(PARAMETERS)))
    if key == "flowers":
        if not isinstance(value, list | tuple) or not all(isinstance(c, str) for c in value):
            raise RulesError(_("{where}: expected a list of tile codes, got {got}").format(
                where=where, got=_type(value)))
        for code in value:
            if code not in ALL_CODES:
                raise RulesError(_("{where}: unknown tile code {code}").format(
                    where=where, code=repr(code)))
        if len(set(value)) != len(value):
            raise RulesError(_("{where}: a code is listed twice").format(where=where))
        return tuple(value)
    if key in _CHOICES:
        allowed = _CHOICES[key]
        if type(value) is not type(allowed[0]) or value not in allowed:
            shown = ", ".join(str(a) for a in allowed)
            raise RulesError(_("{where}: {value} not allowed (allowed: {allowed})").format(
                where=where, value=repr(value), allowed=shown))
        return value
    low, high = _RANGES[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(_("{where}: expected an integer {low}–{high}, got {got}").format(
            where=where, low=low, high=high, got=_type(value)))
    if not low <= value <= high:
        raise RulesError(_("{where}: {value} out of range (allowed {low}–{high})").format(
            where=where, value=value, low=low, high=high))
    return value


def check_consistency(variant: Variant) -> None:
    """Parameters that are each valid but do not fit together raise RulesError."""
    if variant.stacks_per_wall * 8 != variant.tiles:
        raise RulesError(_("overrides.stacks_per_wall: {stacks} stacks per wall do not hold "
                           "{tiles} tiles (use {use})").format(
            stacks=variant.stacks_per_wall, tiles=variant.tiles, use=variant.tiles // 8))
    in_set = set_composition(variant.tiles)
    for code in variant.flowers:
        if code not in in_set:
            raise RulesError(_("{where}: {code} is not in the {tiles}-tile set").format(
                where="overrides.flowers", code=code, tiles=variant.tiles))
    if variant.tiles == 144 and not set(FLOWERS) <= set(variant.flowers):
        raise RulesError(_("overrides.flowers: a 144-tile set needs H1–H8 among the flowers"))
    if variant.flowers and variant.replacement == "none":
        raise RulesError(_("overrides.replacement: 'none' but the variant has flowers "
                           "(allowed: depth_first, round_robin)"))
    if not variant.flowers and variant.replacement != "none":
        raise RulesError(_("overrides.replacement: {got} but the variant has no flowers "
                           "(allowed: none)").format(got=repr(variant.replacement)))
