"""The variants: one module each in this package, found and listed here (the registry).

Each module (`mcr.py`, `tianjin.py`, ...) holds one `VariantRules` (rules/rulebook.py):
its deal row (docs/rules.md's table column), its dealer rule, its scorer and its scoring
parameters, both imported from the scorer's module in rules/scoring/. A new variant is
one module here (and its scorer, unless it shares one) and its tests. A venue may
override any deal parameter (the TOML ``[rules.overrides]`` table); every override is
checked for name, type and range, and the result for consistency, so a typo is an error
and never a silently different deal. An unknown variant is refused everywhere with one line.

The layers (import-linter's contract): the scorekeeper (rules/scorekeeper/) looks a
variant up here; this package imports the scorers (rules/scoring/), which never import
it; all of them build on rules/rulebook.py:
    rules.scorekeeper > rules.variants > rules.scoring > rules.rulebook
The modules are found by name (pkgutil), the one import here no import graph sees: a
variant's module importing a name from this package back fails at once (the package is
half made), so no cycle can hide behind it.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Any

from mjtable_core.schema import ConfigError, load_section, not_allowed

from ..errors import RulesError, shown
from ..i18n import _
from ..rulebook import (
    BREAK_WALLS,
    DEAL_PATTERNS,
    PARAMETERS,
    REPLACEMENTS,
    WILDS,
    DealerRule,
    Fines,
    Variant,
    VariantRules,
)

if TYPE_CHECKING:
    from mjtable_core.config import Config


def _discover() -> dict[str, VariantRules]:
    """Every module of this package not named with a leading underscore is a variant."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        rules = importlib.import_module(f"{__name__}.{info.name}").RULES
        if rules.name != info.name or rules.deal.name != info.name:
            raise ImportError(f"{__name__}.{info.name}: its RULES are named {rules.name!r}")
        found.append(rules)
    return {r.name: r for r in sorted(found, key=lambda r: (r.order, r.name))}


REGISTRY: dict[str, VariantRules] = _discover()
# The deal rows by name (the deal, the audit and the benches read these).
VARIANTS: dict[str, Variant] = {name: r.deal for name, r in REGISTRY.items()}


def unknown(name: object) -> RulesError:
    """The one line that refuses a variant the registry does not hold."""
    return RulesError(_("variant: unknown {name} (known: {known})").format(
        name=shown(name) if not isinstance(name, str) else shown(name).replace('"', "'"),
        known=", ".join(REGISTRY)))


def rules_of(name: object) -> VariantRules:
    """The variant `name`, whole; RulesError (one line) when there is none."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise unknown(name)
    return REGISTRY[name]


LOADED_KEPT = 64    # a venue's few rows; past this, rows are loaded again each time
_LOADED: dict[tuple[str, str], Variant] = {}


def load_variant(name: str, overrides: dict | None = None) -> Variant:
    """The deal row of variant `name` with a venue's `overrides` applied.

    Raises RulesError for an unknown variant, an unknown parameter, a wrong type,
    a value out of range, or parameters that contradict each other.
    """
    base = rules_of(name).deal
    if not overrides:
        return base
    if not isinstance(overrides, dict):
        raise RulesError(_("overrides: expected a table of parameters, got {got}").format(
            got=type(overrides).__name__))
    # Every record names its parameters and every check of it deals again: a row
    # checked once is kept. Keyed by the overrides' repr: a record's values are JSON's
    # (str, int, float, bool, None, lists), whose repr tells their types apart.
    key = (name, repr(overrides))
    variant = _LOADED.get(key)
    if variant is not None:
        return variant
    try:
        variant = _overridden(name, overrides, "<overrides>", "overrides")
    except ConfigError as exc:
        # The deal request's own wording: a path into the input, then the problem.
        raise RulesError(f"overrides.{exc.key}: {exc.problem}" if exc.key
                         else f"overrides: {exc.problem}") from None
    if len(_LOADED) < LOADED_KEPT:
        _LOADED[key] = variant      # frozen: safe to hand out again
    return variant


def _overridden(name: str, overrides: dict[str, Any], file: str, section: str) -> Variant:
    changes = dict(overrides)
    # A set size alone implies its walls, and walls alone their set size.
    tiles, stacks = changes.get("tiles"), changes.get("stacks_per_wall")
    if type(tiles) is int and stacks is None:
        changes["stacks_per_wall"] = tiles // 8
    if type(stacks) is int and tiles is None:
        changes["tiles"] = stacks * 8
    return load_section(Variant, changes, file, section, base=VARIANTS[name], name=name)


def check_table_config(config: Config) -> None:
    """The table's `[rules]`: a known variant, valid overrides, and the variant's tile
    set the one the table builds (entry point group mjtable.config_checks)."""
    section, file = config.rules, config.source
    if section.variant not in REGISTRY:
        raise ConfigError(file, "rules", "variant", not_allowed(section.variant, REGISTRY))
    variant = _overridden(section.variant, dict(section.overrides), file, "rules.overrides")
    if variant.tiles != config.table.tiles:
        raise ConfigError(file, "rules", "variant",
                          f"variant {section.variant!r} plays {variant.tiles} tiles but "
                          f"[table] tiles = {config.table.tiles}")


__all__ = ["BREAK_WALLS", "DEAL_PATTERNS", "PARAMETERS", "REGISTRY", "REPLACEMENTS",
           "VARIANTS", "WILDS", "DealerRule", "Fines", "Variant", "VariantRules",
           "check_table_config", "load_variant", "rules_of", "unknown"]
