"""The commitment published when the walls rise: sha256 over the layout and a nonce.

Canonical encoding (docs/rules.md): the ASCII string

    "mjtable-commit/1|" + nonce + "|" + layout

where layout lists every tile in wall order p = 0..3, stack k = 0..L-1, top then
bottom, each as its two-character code and an unknown tile as "--", with no
separators. The commitment is "sha256:" + the lowercase hex digest of that string.

Chained (version 2): when the table has dealt before, the previous record's
commitment is bound in too, so the deal history is one chain that cannot be rewritten
from the middle:

    "mjtable-commit/2|" + nonce + "|" + previous commitment + "|" + layout

With electronic dice (version 3), the digest of the seed the next hand's dice will
come from is bound in as well, before that hand's walls are built (rules/dicecommit.py);
the previous commitment is empty for the first record:

    "mjtable-commit/3|" + nonce + "|" + previous commitment + "|" + next dice + "|" + layout
"""

from __future__ import annotations

import hashlib
import re
import secrets

from .errors import RulesError
from .i18n import _
from .tiles import ALL_CODES

PREFIX = "mjtable-commit/1"
PREFIX_CHAINED = "mjtable-commit/2"
PREFIX_DICE = "mjtable-commit/3"
_COMMITMENT = re.compile(r"sha256:[0-9a-f]{64}")
_KNOWN = frozenset(ALL_CODES)
_NONCE = re.compile(r"[0-9A-Za-z_.-]{1,128}")


def new_nonce() -> str:
    """A fresh per-deal nonce from the OS CSPRNG (32 hex digits)."""
    return secrets.token_hex(16)


def canonical_layout(walls) -> str:
    """The walls as one string of two-character codes ("--" for unknown).

    Checks the shape (4 walls of equally many [top, bottom] stacks) and the codes,
    so that no two different layouts can encode alike."""
    if not isinstance(walls, list | tuple) or len(walls) != 4:
        raise RulesError(_("walls: expected 4 walls"))
    stacks = len(walls[0]) if isinstance(walls[0], list | tuple) else -1
    parts = []
    for p, wall in enumerate(walls):
        if not isinstance(wall, list | tuple) or len(wall) != stacks:
            raise RulesError(_("{where}: expected {stacks} stacks like wall 0").format(
                where=f"walls[{p}]", stacks=stacks))
        for k, stack in enumerate(wall):
            if not isinstance(stack, list | tuple) or len(stack) != 2:
                raise RulesError(_("{where}: expected a stack [top, bottom]").format(
                    where=f"walls[{p}][{k}]"))
            for level, code in enumerate(stack):
                if code is None:
                    parts.append("--")
                elif isinstance(code, str) and code in _KNOWN:
                    parts.append(code)
                else:
                    raise RulesError(_("{where}: unknown tile code {code}").format(
                        where=f"walls[{p}][{k}][{level}]", code=repr(code)))
    return "".join(parts)


def commitment(walls, nonce: str, previous: str | None = None,
               next_dice: str | None = None) -> str:
    """"sha256:<hex>" of the canonical encoding of `walls` with `nonce` (and the
    previous record's commitment, when there is one; and the digest of the next hand's
    dice seed, where the dice are electronic).

    The nonce is 1-128 characters of letters, digits, "_", "." or "-".
    """
    _check(nonce, previous, next_dice)
    return _digest(canonical_layout(walls), nonce, previous, next_dice)


def layout_commitment(flat: list, nonce: str, previous: str | None = None,
                      next_dice: str | None = None) -> str:
    """`commitment` of walls already checked and flattened in wall order (a deal's
    `rules.validate.checked_layout`): the same digest without walking the walls again."""
    _check(nonce, previous, next_dice)
    return _digest(encode_layout(flat), nonce, previous, next_dice)


def encode_layout(flat: list) -> str:
    """Checked tiles in wall order as the layout string ("--" for an unknown tile)."""
    return "".join(flat) if None not in flat else "".join(
        "--" if code is None else code for code in flat)


def _check(nonce: str, previous: str | None, next_dice: str | None = None) -> None:
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise RulesError(_("nonce: {nonce} is not 1–128 characters of [0-9A-Za-z_.-]").format(
            nonce=repr(nonce)))
    if previous is not None and not (isinstance(previous, str)
                                     and _COMMITMENT.fullmatch(previous)):
        raise RulesError(_("previous commitment: {got} is not sha256:<64 hex digits>").format(
            got=repr(previous)))
    if next_dice is not None and not (isinstance(next_dice, str)
                                      and _COMMITMENT.fullmatch(next_dice)):
        raise RulesError(_("next dice commitment: {got} is not sha256:<64 hex digits>").format(
            got=repr(next_dice)))


def _digest(layout: str, nonce: str, previous: str | None, next_dice: str | None) -> str:
    if next_dice is not None:
        message = f"{PREFIX_DICE}|{nonce}|{previous or ''}|{next_dice}|{layout}"
    elif previous is None:
        message = f"{PREFIX}|{nonce}|{layout}"
    else:
        message = f"{PREFIX_CHAINED}|{nonce}|{previous}|{layout}"
    return "sha256:" + hashlib.sha256(message.encode("ascii")).hexdigest()
