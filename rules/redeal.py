"""Dealing a recorded hand again: its hands must follow from its walls and dice.

A record's commitment binds only its walls (and the chain); the hands, slots,
flowers, replacements, wild tiles and the break are what the engine derived from
those walls and the dice. A record whose hands were edited under untouched walls
would still match its commitment, so `verify-deals` deals every hand again from the
record's own walls, dice, dealer and variant parameters (the built-in engine's
`redeal`) and compares.
"""

from __future__ import annotations

from typing import Any

from .engine import DERIVED, redeal
from .errors import RulesError
from .i18n import _

# Besides what the deal derives: the dice and the set as the deal reads them.
COMPARED = ("tiles_total", "stacks_per_wall", "dice", "params", *DERIVED)


def redeal_problem(record: dict[str, Any]) -> str | None:
    """None when dealing `record`'s walls and dice again gives its hands, else what
    differs (the first field)."""
    try:
        again = redeal(record)
    except (RulesError, KeyError, TypeError, AttributeError, ValueError) as exc:
        # A crafted record: anything missing or of the wrong type.
        return _("it cannot be dealt again from its walls and dice: {error}").format(
            error=exc if isinstance(exc, RulesError) else f"{type(exc).__name__}: {exc}")
    for field in COMPARED:
        if again[field] != record.get(field):
            return _("its {field} are not what its walls and dice deal (the record was "
                     "edited after the deal)").format(field=field)
    return None
