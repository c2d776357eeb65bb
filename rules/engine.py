"""The built-in in-process rules engine: it checks every dealt-walls record it gets.

The firmware loads engines by name from the entry point group `mjtable.rules_engines`
(`[rules] engine` in the table's config). An entry point names a factory — a class or
a function called with no arguments — that returns an object with
`on_deal(record) -> list[str] | None`: the problems it found in the record, if any.
The firmware reports each problem as an event; an exception is reported too and never
stops the table.

`BuiltinEngine` re-deals each record from its own walls and dice and compares the
result field by field, and checks the previous hand's commitment against the nonce
the record reveals. A difference means the firmware handed off a deal that does not
follow from the walls it committed to.
"""

from __future__ import annotations

from .commit import commitment
from .deal import deal
from .errors import RulesError
from .variants import load_variant

# Everything `deal` derives from walls + dice; the commitment differs by its nonce.
DERIVED = ("break", "seats", "hands", "dealt_slots", "flowers", "replacements", "wild",
           "next_draw", "live_remaining")


def redeal(record: dict) -> dict:
    """Deal again from the record's walls, dice, variant parameters and dealer."""
    variant = load_variant(record["variant"], record["params"])
    table = record["table"]
    return deal(record["walls"], [d["faces"] for d in record["dice"]], variant,
                table["dealer_position"], table=None,
                dice_source=[d["source"] for d in record["dice"]],
                prevalent_wind=table["prevalent_wind"])


def check_record(record: dict) -> list[str]:
    """Problems with one record: fields that a re-deal of its walls does not reproduce."""
    try:
        again = redeal(record)
    except (RulesError, KeyError, TypeError) as exc:
        return [f"cannot re-deal the record: {exc}"]
    return [f"{key}: handed off {record.get(key)!r}, re-deal gives {again[key]!r}"
            for key in DERIVED if record.get(key) != again[key]]


def check_reveal(previous: dict, revealed: dict | None) -> list[str]:
    """Problems with the nonce a record reveals for the hand before it."""
    if revealed is None:
        return ["no nonce revealed for the previous hand"]
    cycle = previous.get("table", {}).get("cycle")
    if revealed.get("cycle") != cycle:
        return []   # the hand in between was refused: no record to open
    try:
        expected = commitment(previous["walls"], revealed["nonce"],
                              previous.get("previous_commitment"),
                              previous.get("next_dice_commitment"))
    except (RulesError, KeyError) as exc:
        return [f"revealed nonce unusable: {exc}"]
    if expected != previous["commitment"]:
        return [f"hand {cycle}: the revealed nonce does not open its commitment "
                f"{previous['commitment']}"]
    return []


class BuiltinEngine:
    """Checks each record by re-dealing it, and each revealed nonce against its hand."""

    name = "builtin"

    def __init__(self) -> None:
        self.checked = 0
        self._previous: dict | None = None

    def on_deal(self, record: dict) -> list[str]:
        problems = check_record(record)
        if self._previous is not None:
            problems += check_reveal(self._previous, record.get("revealed"))
        self._previous = record
        self.checked += 1
        return problems
