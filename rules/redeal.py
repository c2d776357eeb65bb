"""Dealing a recorded hand again: its hands must follow from its walls and dice.

A record's commitment binds only its walls (and the chain); the hands, slots,
flowers, replacements, wild tiles and the break are what the engine derived from
those walls and the dice. A record whose hands were edited under untouched walls
would still match its commitment, so `verify-deals` deals every hand again from the
record's own walls, dice, dealer and variant parameters and compares.
"""

from __future__ import annotations

from typing import Any

from .deal import deal
from .errors import RulesError
from .i18n import _
from .variants import load_variant

# What the engine derives from walls and dice (docs/deal-format.md): all must agree.
DERIVED = ("tiles_total", "stacks_per_wall", "dice", "break", "seats", "hands",
           "dealt_slots", "flowers", "replacements", "wild", "next_draw", "live_remaining")
# A placeholder nonce: the commitment is checked elsewhere (rules/chain.py), with the
# nonce revealed in the next record, which the last record does not have yet.
_ANY_NONCE = "redeal"


def redeal_problem(record: dict[str, Any]) -> str | None:
    """None when dealing `record`'s walls and dice again gives its hands, else what
    differs (the first field)."""
    table = record.get("table")
    dice = record.get("dice")
    params = record.get("params")
    if not (isinstance(table, dict) and isinstance(dice, list) and isinstance(params, dict)
            and all(isinstance(d, dict) for d in dice)):
        return _("the record has no table, dice or params to deal it again from")
    try:
        variant = load_variant(record.get("variant"), params)   # type: ignore[arg-type]
        again = deal(record.get("walls"), [d.get("faces") for d in dice], variant,
                     table.get("dealer_position"),       # type: ignore[arg-type]
                     dice_source=[d.get("source") for d in dice], nonce=_ANY_NONCE,
                     prevalent_wind=table.get("prevalent_wind"))   # type: ignore[arg-type]
    except (RulesError, TypeError, ValueError) as exc:
        return _("it cannot be dealt again: {error}").format(error=exc)
    if again["params"] != params:
        return _("its params are not the variant's ({field})").format(field="params")
    for field in DERIVED:
        if again[field] != record.get(field):
            return _("its {field} are not what its walls and dice deal (the record was "
                     "edited after the deal)").format(field=field)
    return None
