"""Which dice throws a variant needs, who throws them, and checking the faces."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import RulesError
from .ring import landing
from .variants import Variant, load_variant

PURPOSES = ("second_thrower", "break", "wild")


@dataclass(frozen=True)
class ThrowRequest:
    """One throw the table must ask for: why, by which position, with how many dice."""

    purpose: str
    thrower_position: int
    dice: int


def check_dealer(dealer_position) -> int:
    if not isinstance(dealer_position, int) or isinstance(dealer_position, bool):
        raise RulesError(f"dealer_position: expected an integer 0–3, got {dealer_position!r}")
    if not 0 <= dealer_position <= 3:
        raise RulesError(f"dealer_position: {dealer_position} outside 0–3")
    return dealer_position


def check_throw(index: int, throw, dice: int) -> list[int]:
    """The faces of throws[index], checked: `dice` integers 1–6."""
    if type(throw) is list and len(throw) == dice and set(map(type, throw)) == {int} \
            and min(throw) >= 1 and max(throw) <= 6:
        return list(throw)      # the common case, checked at C speed
    where = f"throws[{index}]"
    if not isinstance(throw, list | tuple):
        raise RulesError(f"{where}: expected a list of {dice} dice faces, got {throw!r}")
    if len(throw) != dice:
        raise RulesError(f"{where}: expected {dice} dice, got {len(throw)}")
    for j, face in enumerate(throw):
        if not isinstance(face, int) or isinstance(face, bool):
            raise RulesError(f"{where}[{j}]: face {face!r} is not an integer 1–6")
        if not 1 <= face <= 6:
            raise RulesError(f"{where}[{j}]: face {face} outside 1–6")
    return list(throw)


def _plan(variant: Variant, dealer: int, throws: list) -> list[ThrowRequest]:
    """The throws needed, as far as the throws so far determine them."""
    plan = []
    if variant.break_throws == 2:
        plan.append(ThrowRequest("second_thrower", dealer, variant.dice))
        if throws:
            second = landing(dealer, sum(check_throw(0, throws[0], variant.dice)))
            plan.append(ThrowRequest("break", second, variant.dice))
        else:
            plan.append(ThrowRequest("break", -1, variant.dice))  # thrower not yet known
    else:
        plan.append(ThrowRequest("break", dealer, variant.dice))
    if variant.wild == "hun":
        plan.append(ThrowRequest("wild", (dealer + 2) % 4, variant.wild_dice))
    return plan


def throw_plan(variant: Variant, dealer: int, throws) -> list[ThrowRequest]:
    """Every throw of a complete deal, checked against `throws` (missing/extra/faces)."""
    check_dealer(dealer)
    if not isinstance(throws, list | tuple):
        raise RulesError(f"throws: expected a list of throws, got {type(throws).__name__}")
    plan = _plan(variant, dealer, throws)
    if len(throws) != len(plan):
        names = ", ".join(f"{r.purpose} ({r.dice} dice)" for r in plan)
        word = "missing" if len(throws) < len(plan) else "extra"
        raise RulesError(f"throws: {len(throws)} given, {variant.name} needs {len(plan)} "
                         f"({names}): {word} throw")
    for i, request in enumerate(plan):
        check_throw(i, throws[i], request.dice)
    return plan


def next_throw(variant: Variant, dealer_position: int,
               throws: list[list[int]]) -> ThrowRequest | None:
    """The throw the variant needs next given `throws` so far; None when all are in.

    MCR: the dealer throws first (purpose "second_thrower"), then the position the
    total lands on throws "break". Tianjin: the dealer "break", then the 对家 "wild".
    Others: the dealer "break". Raises RulesError for bad faces or too many throws.
    """
    if isinstance(variant, str):
        variant = load_variant(variant)
    check_dealer(dealer_position)
    if not isinstance(throws, list | tuple):
        raise RulesError(f"throws: expected a list of throws, got {type(throws).__name__}")
    plan = _plan(variant, dealer_position, throws)
    if len(throws) > len(plan):
        raise RulesError(f"throws: {len(throws)} given, {variant.name} needs {len(plan)}: "
                         "extra throw")
    for i, throw in enumerate(throws):
        check_throw(i, throw, plan[i].dice)
    return plan[len(throws)] if len(throws) < len(plan) else None
