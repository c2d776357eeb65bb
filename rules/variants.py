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
from typing import TYPE_CHECKING, Any

from mjtable_core.i18n import N_
from mjtable_core.schema import ConfigError, Invalid, load_section, not_allowed, option

from .errors import RulesError
from .i18n import _
from .tiles import ALL_CODES, FLOWERS, HONOURS, SET_SIZES, set_composition

if TYPE_CHECKING:
    from mjtable_core.config import Config

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

PARAMETERS = tuple(f.name for f in dataclasses.fields(Variant) if f.name != "name")


def load_variant(name: str, overrides: dict | None = None) -> Variant:
    """The variant `name` with a venue's `overrides` applied.

    Raises RulesError for an unknown variant, an unknown parameter, a wrong type,
    a value out of range, or parameters that contradict each other.
    """
    if not isinstance(name, str) or name not in VARIANTS:
        raise RulesError(_("variant: unknown {name} (known: {known})").format(
            name=repr(name), known=", ".join(VARIANTS)))
    if not overrides:
        return VARIANTS[name]
    if not isinstance(overrides, dict):
        raise RulesError(_("overrides: expected a table of parameters, got {got}").format(
            got=type(overrides).__name__))
    try:
        return _overridden(name, overrides, "<overrides>", "overrides")
    except ConfigError as exc:
        # The deal request's own wording: a path into the input, then the problem.
        raise RulesError(f"overrides.{exc.key}: {exc.problem}" if exc.key
                         else f"overrides: {exc.problem}") from None


def _overridden(name: str, overrides: dict[str, Any], file: str, section: str) -> Variant:
    changes = dict(overrides)
    # A set size alone implies its walls, and walls alone their set size.
    tiles, stacks = changes.get("tiles"), changes.get("stacks_per_wall")
    if type(tiles) is int and stacks is None:
        changes["stacks_per_wall"] = tiles // 8
    if type(stacks) is int and tiles is None:
        changes["tiles"] = stacks * 8
    return load_section(Variant, changes, file, section, base=VARIANTS[name], name=name)


def check_table_config(config: Config) -> None:
    """The table's `[rules]`: a known variant, valid overrides, and the variant's tile
    set the one the table builds (entry point group mjtable.config_checks)."""
    section, file = config.rules, config.source
    if section.variant not in VARIANTS:
        raise ConfigError(file, "rules", "variant", not_allowed(section.variant, VARIANTS))
    variant = _overridden(section.variant, dict(section.overrides), file, "rules.overrides")
    if variant.tiles != config.table.tiles:
        raise ConfigError(file, "rules", "variant",
                          f"variant {section.variant!r} plays {variant.tiles} tiles but "
                          f"[table] tiles = {config.table.tiles}")
