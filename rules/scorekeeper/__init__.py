"""The scorekeeper: finds the variant a declared win or a drawn hand names and scores it
there; keeps a table's game hand by hand (`session.py`); `mjtable score` (`cli.py`).
See docs/scoring.md.

`score_request(obj)` reads a declared win's JSON object and answers with the dict that
`mjtable score --json` prints; malformed or impossible input raises `RulesError`.

It sits above the registry, the one part of scoring that finds a variant by name:
    rules.scorekeeper > rules.variants > rules.scoring > rules.rulebook
Which scorer, which parameters and which fines a variant has is its module's in
rules/variants/; the scorers and what they share are in rules/scoring/, below the
variants, and never look a variant up (import-linter's layers contract says so).
"""

from __future__ import annotations

from typing import Any

from ..errors import RulesError
from ..i18n import _
from ..rulebook import VariantRules
from ..scoring.declared import COMMON_KEYS, Declared, _json_type, _name, declared_under
from ..scoring.drawn import Drawn, drawn_result, drawn_under
from ..scoring.params import read_params
from ..scoring.penalty import fined
from ..scoring.result import Result
from ..variants import REGISTRY, rules_of


def known_keys() -> set[str]:
    """Every key of a declared win: the common ones and each registered variant's own."""
    return COMMON_KEYS.union(*(r.keys for r in REGISTRY.values()))


def read_declared(obj: object) -> Declared:
    """Check a declared win's JSON object and return it; RulesError on the first problem."""
    if not isinstance(obj, dict):
        raise RulesError(_("expected a JSON object, got {got}").format(got=_json_type(obj)))
    known = known_keys()
    unknown = sorted(set(obj) - known)
    if unknown:
        raise RulesError(_("{key}: unknown key (known: {known})").format(
            key=_name(unknown[0]), known=", ".join(sorted(known))))
    return declared_under(_rules_named(obj), obj)


def read_drawn(obj: dict) -> Drawn:
    """Check a drawn hand's JSON object; RulesError on the first problem."""
    return drawn_under(_rules_named(obj), obj)


def _rules_named(obj: dict) -> VariantRules:
    """The variant the object names; RulesError (one line) when it names none we know."""
    if obj.get("variant") is None:
        raise RulesError(_("input: missing key {key}").format(key="'variant'"))
    return rules_of(obj["variant"])


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


__all__ = ["Declared", "Drawn", "Result", "known_keys", "read_declared", "read_drawn",
           "score_declared", "score_drawn", "score_request"]
