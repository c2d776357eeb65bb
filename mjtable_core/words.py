"""The table's words as a person reads them: machine states, lamps, sides, sets.

Machine states, lamp signals and set letters stay as they are in JSON; these
functions give their names in the current language for screens and text.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from mjtable_core.i18n import N_, _

# A halted machine sits in its "fault" state; shown as what halted it.
ESTOP, TEST_MODE = "estop", "test_mode"

STATES = {
    # cycle
    "homing": N_("homing"), "play": N_("play"), "opening": N_("opening"),
    "hole_open": N_("hole open"), "closing": N_("closing"), "raising": N_("raising walls"),
    "dealing": N_("dealing"), "rolling": N_("rolling dice"),
    "top_up_opening": N_("top-up: opening"), "top_up_open": N_("top-up: open"),
    "top_up_closing": N_("top-up: closing"),
    # build
    "idle": N_("idle"), "building": N_("building"), "paused_full": N_("paused: belts full"),
    "paused_top_up": N_("paused: top-up"), "sweeping": N_("sweeping"), "staged": N_("staged"),
    # lid
    "unknown": N_("unknown"), "open": N_("open"), "closed": N_("closed"),
    # plate
    "home": N_("home"), "leaving": N_("rising"), "returning": N_("returning"),
    # side
    "feeding": N_("feeding"), "stacking": N_("stacking"), "full": N_("full"),
    # dice
    "spinning": N_("spinning"),
    # every machine
    "fault": N_("fault"),
    ESTOP: N_("e-stop"), TEST_MODE: N_("test mode"),
}

LAMPS = {
    "lamp.ready": N_("ready"), "lamp.building": N_("building"),
    "lamp.dealer.0": N_("dealer 0"), "lamp.dealer.1": N_("dealer 1"),
    "lamp.dealer.2": N_("dealer 2"), "lamp.dealer.3": N_("dealer 3"),
}


# The API's methods as a technician says them ("诊断 被拒", never "diagnose 被拒").
METHODS = {
    "info": N_("info"), "status": N_("status"), "subscribe": N_("subscribe"),
    "faults": N_("faults"), "diagnose": N_("diagnose"), "test": N_("self-test"),
    "testmode": N_("test mode"), "jog": N_("jog"), "jog_hold": N_("jog"),
    "jog_keep": N_("jog"), "jog_stop": N_("jog"), "clear": N_("clear"),
    "estop": N_("e-stop"), "walls": N_("walls"), "log": N_("log"), "config": N_("config"),
    "login": N_("log in"), "logout": N_("log out"), "score": N_("score"),
    "usage": N_("usage"), "command": N_("command"), "health": N_("health"),
}

# The motors a technician jogs, by the jog's names (firmware/machines/maintenance.py).
MOTORS = {"lid": N_("lid"), "disc": N_("shuffle disc"), "ring": N_("magnet ring"),
          "dice": N_("dice")}
SIDE_MOTORS = {"head": N_("stacking head of side {n}"),
               "plate": N_("wall lift plate of side {n}"),
               "conveyor": N_("conveyor of side {n}")}


def method(name: str) -> str:
    """An API method as said in the current language (unknown ones as they are)."""
    label = METHODS.get(name)
    return _(label) if label else name


def motor(name: str) -> str:
    """A jog motor ("lid", "head.2") as said in the current language."""
    part, _dot, n = name.partition(".")
    if n and part in SIDE_MOTORS:
        return _(SIDE_MOTORS[part]).format(n=n)
    label = MOTORS.get(name)
    return _(label) if label else name


def mode(estopped: bool, test_mode: bool, error_active: bool) -> str | None:
    """What holds the table stopped when it is not a fault: e-stop or test mode."""
    if estopped:
        return ESTOP
    if test_mode and not error_active:
        return TEST_MODE
    return None


def state(name: str | None, held_by: str | None = None) -> str:
    """A machine state in the current language; a halted machine shows what halted it."""
    if name == "fault" and held_by:
        name = held_by
    if name is None:
        return "·"
    label = STATES.get(name)
    return _(label) if label else name


def phase(name: str | None, held_by: str | None, set_in_play: Any) -> str:
    """The hand cycle's state for a person: before the first hand the table is in
    `play` with no set in play, building its first set (not "hand 0 · play")."""
    if name == "play" and set_in_play is None and not held_by:
        return _("building the first set")
    return state(name, held_by)


def lamp(name: str) -> str:
    """A lamp's name in the current language."""
    label = LAMPS.get(name)
    return _(label) if label else name.removeprefix("lamp.")


def set_name(letter: Any) -> str:
    """A set (A or B) as said; None before the first hand."""
    if letter is None:
        return _("none yet")
    return _("set {letter}").format(letter=letter)


def fault_at(code: str, fault_id: str, where: str) -> str:
    """A fault named with its place: "E21 head.jam at side 1"."""
    return _("{code} {id} at {where}").format(code=code, id=fault_id, where=where)


def side(n: int) -> str:
    """Side n as said in the current language."""
    return _("side {n}").format(n=n)


def cells(text: str) -> int:
    """Terminal columns `text` takes: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
