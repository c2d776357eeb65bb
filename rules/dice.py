"""Which dice throws a variant needs, who throws them, and checking the faces."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .errors import RulesError
from .i18n import _
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
        raise RulesError(_("dealer_position: expected an integer 0–3, got {got}").format(
            got=repr(dealer_position)))
    if not 0 <= dealer_position <= 3:
        raise RulesError(_("dealer_position: {got} outside 0–3").format(got=dealer_position))
    return dealer_position


def check_throw(index: int, throw, dice: int) -> list[int]:
    """The faces of throws[index], checked: `dice` integers 1–6."""
    if type(throw) is list and len(throw) == dice and set(map(type, throw)) == {int} \
            and min(throw) >= 1 and max(throw) <= 6:
        return list(throw)      # the common case, checked at C speed
    where = f"throws[{index}]"
    if not isinstance(throw, list | tuple):
        raise RulesError(_("{where}: expected a list of {dice} dice faces, got {got}").format(
            where=where, dice=dice, got=repr(throw)))
    if len(throw) != dice:
        raise RulesError(_("{where}: expected {dice} dice, got {got}").format(
            where=where, dice=dice, got=len(throw)))
    for j, face in enumerate(throw):
        if not isinstance(face, int) or isinstance(face, bool):
            raise RulesError(_("{where}: face {face} is not an integer 1–6").format(
                where=f"{where}[{j}]", face=repr(face)))
        if not 1 <= face <= 6:
            raise RulesError(_("{where}: face {face} outside 1–6").format(
                where=f"{where}[{j}]", face=face))
    return list(throw)


def _plan(variant: Variant, dealer: int, throws: list) -> tuple[ThrowRequest, ...]:
    """The throws needed, as far as the throws so far determine them."""
    second = None
    if variant.break_throws == 2 and throws:
        second = landing(dealer, sum(check_throw(0, throws[0], variant.dice)))
    return _requests(variant, dealer, second)


@functools.lru_cache(maxsize=4096)
def _requests(variant: Variant, dealer: int, second: int | None) -> tuple[ThrowRequest, ...]:
    """The throws of `variant` with this dealer and second thrower (None: not yet
    known); a few dozen plans per variant, made once (every deal asks)."""
    plan = []
    if variant.break_throws == 2:
        plan.append(ThrowRequest("second_thrower", dealer, variant.dice))
        plan.append(ThrowRequest("break", -1 if second is None else second, variant.dice))
    else:
        plan.append(ThrowRequest("break", dealer, variant.dice))
    if variant.wild == "hun":
        plan.append(ThrowRequest("wild", (dealer + 2) % 4, variant.wild_dice))
    return tuple(plan)


def throw_plan(variant: Variant, dealer: int, throws) -> tuple[ThrowRequest, ...]:
    """Every throw of a complete deal, checked against `throws` (missing/extra/faces)."""
    check_dealer(dealer)
    if not isinstance(throws, list | tuple):
        raise RulesError(_("throws: expected a list of throws, got {got}").format(
            got=type(throws).__name__))
    plan = _plan(variant, dealer, throws)
    if len(throws) != len(plan):
        names = _(", ").join(_("{purpose} ({dice} dice)").format(purpose=r.purpose, dice=r.dice)
                             for r in plan)
        message = (_("throws: {given} given, {variant} needs {needed} ({names}): missing throw")
                   if len(throws) < len(plan) else
                   _("throws: {given} given, {variant} needs {needed} ({names}): extra throw"))
        raise RulesError(message.format(given=len(throws), variant=variant.name,
                                        needed=len(plan), names=names))
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
        raise RulesError(_("throws: expected a list of throws, got {got}").format(
            got=type(throws).__name__))
    plan = _plan(variant, dealer_position, throws)
    if len(throws) > len(plan):
        raise RulesError(_("throws: {given} given, {variant} needs {needed}: extra throw").format(
            given=len(throws), variant=variant.name, needed=len(plan)))
    for i, throw in enumerate(throws):
        check_throw(i, throw, plan[i].dice)
    return plan[len(throws)] if len(throws) < len(plan) else None
