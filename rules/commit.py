"""The commitment published when the walls rise: sha256 over the layout and a nonce.

Canonical encoding (docs/rules.md): the ASCII string

    "mjtable-commit/1|" + nonce + "|" + layout

where layout lists every tile in wall order p = 0..3, stack k = 0..L-1, top then
bottom, each as its two-character code and an unknown tile as "--", with no
separators. The commitment is "sha256:" + the lowercase hex digest of that string.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from .errors import RulesError

PREFIX = "mjtable-commit/1"
_NONCE = re.compile(r"[0-9A-Za-z_.-]{1,128}")


def new_nonce() -> str:
    """A fresh per-deal nonce from the OS CSPRNG (32 hex digits)."""
    return secrets.token_hex(16)


def canonical_layout(walls) -> str:
    """The walls as one string of two-character codes ("--" for unknown)."""
    return "".join(code if code is not None else "--"
                   for wall in walls for stack in wall for code in stack)


def commitment(walls, nonce: str) -> str:
    """"sha256:<hex>" of the canonical encoding of `walls` with `nonce`.

    The nonce is 1-128 characters of letters, digits, "_", "." or "-".
    """
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise RulesError(f"nonce: {nonce!r} is not 1–128 characters of [0-9A-Za-z_.-]")
    message = f"{PREFIX}|{nonce}|{canonical_layout(walls)}"
    return "sha256:" + hashlib.sha256(message.encode("ascii")).hexdigest()
