"""A variant's scoring parameters with a declared win's `params` overrides, checked.

Where a rule book is silent or contradicts itself, the choice is a parameter with a
documented default (docs/scoring.md); a venue or a referee's script changes it in the
request's "params" object. A wrong name, type or value is an error, never ignored.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from ..errors import RulesError
from ..i18n import _

P = TypeVar("P")


def read_params(cls: type[P], overrides: dict[str, Any],
                choices: dict[str, tuple[str, ...]] | None = None) -> P:
    """`cls()` with `overrides` applied; RulesError naming `params.<name>` on a bad one."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    base = cls()
    if not overrides:
        return base
    changes = {}
    for name, value in overrides.items():
        if name not in fields:
            raise RulesError(_("params.{name}: unknown parameter (known: {known})").format(
                name=name, known=", ".join(fields)))
        expected = type(getattr(base, name))
        if type(value) is not expected:
            raise RulesError(_("params.{name}: expected {kind}, got {got}").format(
                name=name, kind=expected.__name__, got=repr(value)))
        allowed = (choices or {}).get(name)
        if allowed and value not in allowed:
            raise RulesError(_("params.{name}: {got} is not one of {allowed}").format(
                name=name, got=repr(value), allowed=", ".join(allowed)))
        if expected is int and value < 0:
            raise RulesError(_("params.{name}: {got} is negative").format(
                name=name, got=value))
        changes[name] = value
    return dataclasses.replace(base, **changes)
