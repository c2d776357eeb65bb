"""argparse's own words (usage, errors) in the current language.

argparse looks its words up with gettext in its own domain; these are the ones a
person meets with the mjtable commands, translated in mjtable's catalogue.
"""

from __future__ import annotations

import argparse

from firmware.i18n import N_, _

ARGPARSE = [
    N_("usage: "), N_("positional arguments"), N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"), N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"), N_("expected one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("%(prog)s: error: %(message)s\n"), N_("not allowed with argument %s"),
]


def install() -> None:
    """Let argparse speak the current language (its words are in our catalogue)."""
    argparse._ = _   # type: ignore[attr-defined]  # argparse's module-level gettext
