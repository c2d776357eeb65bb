"""A variant's scoring parameters with a declared win's `params` overrides, checked.

Where a rule book is silent or contradicts itself, the choice is a parameter with a
documented default (docs/scoring.md); a venue or a referee's script changes it in the
request's "params" object. A wrong name, type, choice or value out of its limits (each
field's `option(minval=, maxval=, choices=)` in the variant's module) is an error,
never ignored: a stake of 10^4000 would otherwise become a number too long to print.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from ..errors import RulesError
from ..i18n import _
from .declared import _name, _show

P = TypeVar("P")


def read_params(cls: type[P], overrides: dict[str, Any]) -> P:
    """`cls()` with `overrides` applied; RulesError naming `params.<name>` on a bad one."""
    fields = {f.name: f for f in dataclasses.fields(cls)}   # type: ignore[arg-type]
    base = cls()
    if not overrides:
        return base
    changes = {}
    for name, value in overrides.items():
        if name not in fields:
            raise RulesError(_("params.{name}: unknown parameter (known: {known})").format(
                name=_name(name), known=", ".join(fields)))
        expected = type(getattr(base, name))
        if type(value) is not expected:
            raise RulesError(_("params.{name}: expected {kind}, got {got}").format(
                name=name, kind=expected.__name__, got=_show(value)))
        meta = fields[name].metadata
        allowed = meta.get("choices")
        if allowed and value not in allowed:
            raise RulesError(_("params.{name}: {got} is not one of {allowed}").format(
                name=name, got=_show(value), allowed=", ".join(allowed)))
        least, most = meta.get("minval"), meta.get("maxval")
        if expected is int and ((least is not None and value < least)
                                or (most is not None and value > most)):
            raise RulesError(_("params.{name}: {got} is not from {least} to {most}").format(
                name=name, got=_show(value), least=least, most=most))
        changes[name] = value
    return dataclasses.replace(base, **changes)   # type: ignore[type-var]
