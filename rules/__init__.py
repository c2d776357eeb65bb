"""mjtable rules engine: variants, the deal from walls and dice, the handoff record,
and a fairness audit over a history of deals. See docs/rules.md."""

from .commit import commitment
from .deal import SCHEMA, deal, deal_with_nonce
from .dice import ThrowRequest, next_throw
from .errors import RulesError
from .request import deal_request, deal_request_with_nonce
from .validate import validate_walls
from .variants import VARIANTS, Variant, load_variant

__all__ = [
    "SCHEMA",
    "VARIANTS",
    "RulesError",
    "ThrowRequest",
    "Variant",
    "commitment",
    "deal",
    "deal_request",
    "deal_request_with_nonce",
    "deal_with_nonce",
    "load_variant",
    "next_throw",
    "validate_walls",
]
