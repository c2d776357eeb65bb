"""Scoring a declared win under each variant (docs/scoring.md).

`score_request(obj)` reads a declared win's JSON object and answers with the dict that
`mjtable score --json` prints; malformed or impossible input raises `RulesError`. Which
scorer, which parameters and which fines a variant has is its module's in
rules/variants/ (the registry); this module only puts them together.
"""

from __future__ import annotations

from ..errors import RulesError
from ..i18n import _
from ..variants import rules_of
from .declared import Declared, _name, read_declared
from .params import read_params
from .penalty import fined
from .result import Result


def score_declared(declared: Declared) -> Result:
    """The result of a checked declared win under its variant."""
    rules = rules_of(declared.variant)
    if rules.params is None:
        if declared.params:
            # The rule books fix every value here: a parameter is a mistake, never ignored.
            raise RulesError(_("params.{name}: unknown parameter; the {variant} variant has "
                               "none").format(name=_name(sorted(declared.params)[0]),
                                              variant=declared.variant))
        params = None
    else:
        params = read_params(rules.params, declared.params)
    result = rules.score(declared, params)
    if not result.win and result.failed and rules.fines is not None:
        result = fined(declared, result, rules.fines)
    return result


def score_request(obj: object) -> dict:
    """Check and score a declared win given as a JSON object; RulesError when malformed."""
    return score_declared(read_declared(obj)).as_dict()


__all__ = ["Declared", "Result", "read_declared", "score_declared", "score_request"]
