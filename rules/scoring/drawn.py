"""A drawn hand (流局, 和局) given as JSON, where a variant's rule book still prices it.

`{"variant": "tianjin", "draw": true, "chan": true, "zuozhuang": true}`: nobody wins, and
what the rule book pays on a draw is paid - Tianjin's 铲 ("在正常结算之后（无论是否流局）");
Fuzhou's wall is checked against the tiles it leaves ("最后留18张…"). The facts a draw
reads are those of the variant's own keys that make sense without a winner.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RulesError
from ..i18n import _
from ..rulebook import Variant, VariantRules
from .declared import Wall, _facts, _json_type, _name
from .result import Result

# The variants' keys that a drawn hand may carry.
DRAW_KEYS = frozenset({"zuozhuang", "lazhuang", "chan", "wall"})


@dataclass(frozen=True)
class Drawn:
    """A drawn hand, checked."""

    variant: str
    params: dict
    zuozhuang: bool = False
    lazhuang: dict[int, int] = field(default_factory=dict)
    chan: bool = False
    wall: Wall | None = None
    deal: Variant = field(kw_only=True)   # the variant's deal row (Fuzhou's reserve)


def drawn_under(rules: VariantRules, obj: dict) -> Drawn:
    """Check a drawn hand's JSON object under the variant `rules` (its "variant" names
    them); RulesError on the first problem."""
    allowed = {"variant", "draw", "params"} | (rules.keys & DRAW_KEYS)
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise RulesError(_("{key}: not a key of a drawn {variant} hand (known: {known})")
                         .format(key=_name(unknown[0]), variant=rules.name,
                                 known=", ".join(sorted(allowed))))
    if obj["draw"] is not True:
        raise RulesError(_("draw: expected true"))
    params = obj.get("params", {})
    if not isinstance(params, dict):
        raise RulesError(_("params: expected an object, got {got}").format(
            got=_json_type(params)))
    facts = _facts(obj, 0)
    return Drawn(rules.name, params, **facts, deal=rules.deal)


def drawn_result(payments: dict[int, int], **notes: object) -> Result:
    """The answer to a drawn hand: not a win, and what is paid all the same."""
    return Result(False, _("a drawn hand (流局): nobody wins"), [], 0, False, payments,
                  notes={"drawn": True, **notes})
