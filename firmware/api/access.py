"""Default deny: every API method has a class, checked when the server is built.

- open: reads that reveal nothing secret, and the e-stop (anyone may stop the table);
- technician: changes the table's state (clear a fault, test mode, release an e-stop);
- motion: moves a mechanism; needs a technician and is refused while a hand is in
  play (enter test mode first).
A handler with no class stops the daemon from starting: a new method cannot be added
open by mistake.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

OPEN = "open"
TECHNICIAN = "technician"
MOTION = "motion"

CLASSES: dict[str, str] = {
    "info": OPEN, "status": OPEN, "subscribe": OPEN, "faults": OPEN, "walls": OPEN,
    "log": OPEN, "config": OPEN, "estop": OPEN, "login": OPEN, "logout": OPEN,
    # Without "check": true diagnose only reads what the firmware knows.
    "diagnose": OPEN,
    # A player's action: the seats of the hand just ended enter its result.
    "score": OPEN,
    # The usage ledger (firmware/api/usage.py); the venue acknowledges by a signed command.
    "usage": OPEN,
    # Signed by the venue and checked in the daemon (firmware/service/signed.py).
    "command": OPEN,
    # Wear and the maintenance schedule (firmware/api/health.py).
    "health": OPEN, "maintained": TECHNICIAN,
    "clear": TECHNICIAN, "testmode": TECHNICIAN,
    "test": MOTION, "jog": MOTION,
    # Hold-to-run (firmware/api/hold.py): starting moves a motor; a keep is checked
    # against the session that started it; a stop is the safe direction.
    "jog_hold": MOTION, "jog_keep": OPEN, "jog_stop": OPEN,
}


class Unclassified(Exception):
    """A method without a class: the daemon refuses to start."""


def check_classified(methods: Iterable[str]) -> None:
    """Raise Unclassified unless every method has a class."""
    missing = sorted(set(methods) - set(CLASSES))
    if missing:
        raise Unclassified("API methods without an access class (firmware/api/access.py): "
                           + ", ".join(missing) + "; the daemon does not start")


def classify(method: str, params: dict[str, Any]) -> str:
    """The class of one request: its method's, raised by what the params ask for."""
    base = CLASSES[method]
    if method == "estop" and params.get("release"):
        return TECHNICIAN
    if method == "diagnose" and params.get("check"):
        return MOTION
    return base


def needs_technician(kind: str) -> bool:
    return kind in (TECHNICIAN, MOTION)
