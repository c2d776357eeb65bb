"""The JSON input of a deal (docs/deal-format.md) to the handoff record."""

from __future__ import annotations

from .deal import deal_with_nonce
from .errors import RulesError
from .variants import load_variant

REQUIRED = ("variant", "dealer_position", "walls", "throws")
OPTIONAL = ("overrides", "table", "prevalent_wind", "dice_source", "nonce")


def deal_request_with_nonce(obj: dict) -> tuple[dict, str]:
    """Like `deal_request`, returning (record, nonce)."""
    if not isinstance(obj, dict):
        raise RulesError(f"input: expected a JSON object, got {type(obj).__name__}")
    for key in REQUIRED:
        if key not in obj:
            raise RulesError(f"input: missing key {key!r}")
    for key in obj:
        if key not in REQUIRED + OPTIONAL:
            raise RulesError(f"input: unknown key {key!r} (known: "
                             f"{', '.join(REQUIRED + OPTIONAL)})")
    variant = load_variant(obj["variant"], obj.get("overrides"))
    return deal_with_nonce(obj["walls"], obj["throws"], variant, obj["dealer_position"],
                           table=obj.get("table"),
                           dice_source=obj.get("dice_source", "simulated"),
                           nonce=obj.get("nonce"),
                           prevalent_wind=obj.get("prevalent_wind", "E"))


def deal_request(obj: dict) -> dict:
    """The handoff record for a deal input object.

    Keys: `variant`, `dealer_position`, `walls`, `throws` (required); `overrides`,
    `table`, `prevalent_wind`, `dice_source`, `nonce` (optional). Any other key,
    and any bad value, raises RulesError.
    """
    return deal_request_with_nonce(obj)[0]
