"""Default deny: every API method has a class, checked when the server is built.

- open: reads that reveal nothing secret, and the e-stop (anyone may stop the table);
- technician: changes the table's state (clear a fault, test mode, release an e-stop);
- motion: moves a mechanism; needs a technician and is refused while a hand is in
  play (enter test mode first).
A handler with no class stops the daemon from starting: a new method cannot be added
open by mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

OPEN = "open"
TECHNICIAN = "technician"
MOTION = "motion"

H = TypeVar("H", bound=Callable[..., Any])


def method(access: str) -> Callable[[H], H]:
    """A handler's access class, written where the handler is: `@method(OPEN)`."""
    def mark(handler: H) -> H:
        handler.access = access     # type: ignore[attr-defined]
        return handler
    return mark


class Unclassified(Exception):
    """A method without a class: the daemon refuses to start."""


def check_classified(handlers: Mapping[str, Callable[..., Any]]) -> dict[str, str]:
    """Every method's class; Unclassified unless every handler was written with one."""
    classes = {name: getattr(handler, "access", None) for name, handler in handlers.items()}
    missing = sorted(name for name, access in classes.items() if access is None)
    if missing:
        raise Unclassified("API methods without an access class (write each with "
                           "@method(...), firmware/api/access.py): " + ", ".join(missing)
                           + "; the daemon does not start")
    return classes      # type: ignore[return-value]


def classify(classes: Mapping[str, str], method: str, params: dict[str, Any]) -> str:
    """The class of one request: its method's, raised by what the params ask for."""
    base = classes[method]
    if method == "estop" and params.get("release"):
        return TECHNICIAN
    if method == "diagnose" and params.get("check"):
        return MOTION
    return base


def needs_technician(kind: str) -> bool:
    return kind in (TECHNICIAN, MOTION)
