"""Scoring a declared win under each variant (docs/scoring.md).

`score_request(obj)` reads a declared win's JSON object and answers with the dict that
`mjtable score --json` prints; malformed or impossible input raises `RulesError`.
"""

from __future__ import annotations

from .declared import Declared, read_declared
from .result import Result


def score_declared(declared: Declared) -> Result:
    """The result of a checked declared win under its variant."""
    if declared.variant in ("mcr", "jingji"):
        from .mcr import score
    elif declared.variant == "guangdong":
        from .guangdong import score
    elif declared.variant == "tianjin":
        from .tianjin import score
    else:
        from .fuzhou import score
    return score(declared)


def score_request(obj: object) -> dict:
    """Check and score a declared win given as a JSON object; RulesError when malformed."""
    return score_declared(read_declared(obj)).as_dict()


__all__ = ["Declared", "Result", "read_declared", "score_declared", "score_request"]
