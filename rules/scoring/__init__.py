"""Scoring a declared win under each variant (docs/scoring.md).

`score_request(obj)` reads a declared win's JSON object and answers with the dict that
`mjtable score --json` prints; malformed or impossible input raises `RulesError`. Which
scorer, which parameters and which fines a variant has is its module's in
rules/variants/ (the registry); this module only puts them together.
"""

from __future__ import annotations

from typing import Any

from ..errors import RulesError
from ..i18n import _
from ..variants import VariantRules, rules_of
from .declared import Declared, _name, read_declared
from .drawn import Drawn, drawn_result, read_drawn
from .params import read_params
from .penalty import fined
from .result import Result


def score_declared(declared: Declared) -> Result:
    """The result of a checked declared win under its variant."""
    rules = rules_of(declared.variant)
    result = rules.score(declared, _params(rules, declared.params))
    if not result.win and result.failed and rules.fines is not None:
        result = fined(declared, result, rules.fines)
    return result


def _params(rules: VariantRules, given: dict) -> Any:
    if rules.params is not None:
        return read_params(rules.params, given)
    if given:
        # The rule books fix every value here: a parameter is a mistake, never ignored.
        raise RulesError(_("params.{name}: unknown parameter; the {variant} variant has "
                           "none").format(name=_name(sorted(given)[0]), variant=rules.name))
    return None


def score_drawn(drawn: Drawn) -> Result:
    """The result of a checked drawn hand: what its variant pays on a draw, if anything."""
    rules = rules_of(drawn.variant)
    params = _params(rules, drawn.params)
    if rules.score_drawn is None:
        return drawn_result(dict.fromkeys(range(4), 0))
    return rules.score_drawn(drawn, params)


def score_request(obj: object) -> dict:
    """Check and score a declared win, or a drawn hand (`"draw": true`), given as a JSON
    object; RulesError when malformed."""
    if isinstance(obj, dict) and "draw" in obj:
        return score_drawn(read_drawn(obj)).as_dict()
    return score_declared(read_declared(obj)).as_dict()


__all__ = ["Declared", "Drawn", "Result", "read_declared", "read_drawn", "score_declared",
           "score_drawn", "score_request"]
