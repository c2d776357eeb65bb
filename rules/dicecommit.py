"""Electronic dice bound before the walls are known: commit to a seed, reveal it later.

Where the table rolls the dice itself, a dishonest firmware could look at the walls and
roll again until the break suits someone. So the faces of hand n+1 come from a seed
drawn when hand n's walls rise, before the set of hand n+1 is even built, and the
seed's digest is bound into hand n's commitment (rules/commit.py, version 3). The seed
is revealed in hand n+1's own record, where anyone can derive the faces again
(docs/rules.md, How a player checks a hand).

Seed digest:  "sha256:" + sha256("mjtable-dice/1|" + seed)
Faces:        for throw i, die j: the bytes of sha256("mjtable-dice/1|" + seed + "|"
              + i + "|" + j), the first byte below 252 taken as 1 + byte mod 6 (so
              every face is equally likely); should none of the 32 be below 252, the
              digest is hashed again and read on.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from .errors import RulesError
from .i18n import _

PREFIX = "mjtable-dice/1"
_SEED = re.compile(r"[0-9a-f]{32,128}")
_UNBIASED = 252     # 42 * 6: bytes from here up would favour the low faces


def new_seed() -> str:
    """A fresh dice seed from the OS CSPRNG (32 hex digits)."""
    return secrets.token_hex(16)


def check_seed(seed: object) -> str:
    """`seed` when it is 32–128 lowercase hex digits; RulesError otherwise."""
    if not isinstance(seed, str) or not _SEED.fullmatch(seed):
        raise RulesError(_("dice seed: {got} is not 32–128 lowercase hex digits").format(
            got=repr(seed)))
    return seed


def seed_commitment(seed: str) -> str:
    """The digest of a dice seed, published before the walls it will break are built."""
    check_seed(seed)
    return "sha256:" + hashlib.sha256(f"{PREFIX}|{seed}".encode("ascii")).hexdigest()


def faces(seed: str, throw: int, dice: int) -> list[int]:
    """The faces of throw number `throw` (0 first) with `dice` dice, from `seed`."""
    check_seed(seed)
    out = []
    for die in range(dice):
        digest = hashlib.sha256(f"{PREFIX}|{seed}|{throw}|{die}".encode("ascii")).digest()
        while True:
            byte = next((b for b in digest if b < _UNBIASED), None)
            if byte is not None:
                out.append(1 + byte % 6)
                break
            digest = hashlib.sha256(digest).digest()
    return out
