"""Argument types for the command lines: a bad value is one line in the reader's
language ("--cycles: must be a whole number, got 'abc'"), never argparse's
"invalid _positive_int value" naming a Python function."""

from __future__ import annotations

import argparse

from mjtable_core.i18n import _


def whole(text: str) -> int:
    """A whole number (a seed, a hand number, a limit)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("must be a whole number, got “{text}”").format(
            text=text)) from None


def number(text: str) -> float:
    """A number of seconds or a factor."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(_("must be a number, got “{text}”").format(
            text=text))
    return value


def positive_int(text: str) -> int:
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1, got {value}").format(
            value=value))
    return value


def speed(text: str) -> float:
    value = number(text)
    if not 0 < value <= 100000:
        raise argparse.ArgumentTypeError(
            _("must be above 0 and at most 100000, got {value}").format(value=value))
    return value
