"""The one exception the rules engine raises, and how it shows a value from the input."""

from __future__ import annotations

import json
import reprlib

from .i18n import _


class RulesError(ValueError):
    """Bad input to the rules engine.

    The message is one line: where (a path into the input such as
    ``walls[2][5][0]`` or ``overrides.head_offset``) and what is wrong with it.
    """


def shown(value: object) -> str:
    """A value from the input as one short line for a message: a string quoted with its
    newlines and controls escaped, a huge number by its size (never converted whole:
    Python refuses an int of over 4,300 digits), a nested list cut short."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        text = "<" + _("a number of about {digits} digits").format(
            digits=int(value.bit_length() * 0.30103) + 1) + ">"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = reprlib.repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
