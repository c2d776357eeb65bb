"""Every word the phone page shows, through the project's catalogue (zh_CN beside it).

The page has no strings of its own: the server renders these in the reader's language
and hands the script the ones it needs as JSON.
"""

from __future__ import annotations

from firmware.i18n import N_, _, language
from mjtable_core import words as table_words

# Shown in the page's own markup.
PAGE = {
    "title": N_("table {table}: phone console"),
    "display": N_("display"),
    "lamps": N_("lamps"),
    "faults": N_("active faults"),
    "no_faults": N_("no active faults"),
    "cause": N_("cause"),
    "remedy": N_("remedy"),
    "diagnosis": N_("guided diagnosis"),
    "symptom": N_("what do you see?"),
    "diagnose": N_("diagnose"),
    "technician": N_("technician"),
    "name": N_("name"),
    "token": N_("token"),
    "login": N_("log in"),
    "logout": N_("log out"),
    "testmode_on": N_("enter test mode"),
    "testmode_force": N_("stop the build and enter test mode"),
    "testmode_off": N_("leave test mode"),
    "selftest": N_("self-test"),
    "run_test": N_("run the test"),
    "jog": N_("jog (hold to run)"),
    "motor": N_("motor"),
    "language": N_("language"),
    "offline": N_("no answer from the table"),
    "lan_only": N_("this console answers only on the venue's own network"),
}
# Said by the script as things happen.
SCRIPT = {
    "up": N_("hold: up"),
    "down": N_("hold: down"),
    "fwd": N_("hold: run"),
    "running": N_("running: release to stop"),
    "stopped": N_("stopped"),
    "hold_lost": N_("stopped: the hold was lost"),
    "test_mode": N_("test mode"),
    "estopped": N_("e-stop"),
    "logged_in": N_("logged in as {name}"),
    "working": N_("working…"),
    "normal": N_("normal"),
    "not_normal": N_("not normal"),
    "cause": N_("cause"),
    "remedy": N_("remedy"),
}
# The score form (score.js): what the page labels, by the script's keys.
SCORE = {
    "title": N_("score the hand just ended"),
    "seat": N_("seat of the winner, 0-3"),
    "draw": N_("a drawn hand"),
    "concealed": N_("concealed tiles"),
    "melds": N_("melds"),
    "win_tile": N_("winning tile"),
    "discarder": N_("discarder"),
    "flowers": N_("flowers"),
    "self_drawn": N_("self-drawn"),
    "fourth_tile": N_("last of its kind"),
    "kong": N_("robbing a kong / on a kong's draw"),
    "last_tile": N_("last tile of the wall"),
    "zuozhuang": N_("the dealer sits for double (坐庄, Tianjin)"),
    "chow": N_("chow"),
    "pung": N_("pung"),
    "kong_meld": N_("kong"),
    "left": N_("from the left"),
    "across": N_("from across"),
    "right": N_("from the right"),
    "concealed_kong": N_("concealed kong"),
    "claimed": N_("the tile taken"),
    "add_meld": N_("add a meld"),
    "remove": N_("remove"),
    "taps": N_("tap a tile to add it to the part in blue; tap a chosen tile to remove it"),
    "send": N_("send the score"),
}


def page_words(lang: str) -> dict[str, str]:
    with language(lang):
        return {key: _(text) for key, text in PAGE.items()}


def script_words(lang: str) -> dict[str, str]:
    with language(lang):
        return {key: _(text) for key, text in SCRIPT.items()}


def score_words(lang: str) -> dict[str, str]:
    with language(lang):
        return {key: _(text) for key, text in SCORE.items()}


def lamp_name(name: str) -> str:
    """A lamp's label in the current language, as the table's own screens say it (the
    dealer lamps by seat: 东南西北 in Chinese)."""
    return table_words.lamp(name)


def running(motion: str | None, test_labels: dict[str, str]) -> str | None:
    """The service motion in progress ("test lid", "jog head.2": ids) as a technician
    reads it: the test's label (the daemon's, by test name), or the jogged motor's
    name."""
    if not motion:
        return None
    verb, _sep, name = motion.partition(" ")
    if verb == "test":
        return test_labels.get(name, motion)
    if verb == "jog":
        return _("jog") + " " + table_words.motor(name)
    return motion
