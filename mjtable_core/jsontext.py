"""JSON from a file a person hands a tool: every way it can be wrong is a
`json.JSONDecodeError` (a ValueError), so each tool says one line and exits 2.

Python's own parser raises other things on two crafted inputs: RecursionError on
arrays nested past its stack, and a plain ValueError on an integer past 4,300 digits
(and one under that limit still takes quadratic time and fails when printed). No
number in the project's files needs more than MAX_DIGITS digits.
"""

from __future__ import annotations

import json
from typing import Any

from mjtable_core.i18n import N_, _

MAX_DIGITS = 64


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(_("an integer of {digits} digits (at most {most})").format(
            digits=len(text.lstrip("-")), most=MAX_DIGITS))
    return int(text)


def loads(text: str | bytes) -> Any:
    """json.loads, with every malformed input a JSONDecodeError (never a traceback)."""
    try:
        return json.loads(text, parse_int=_integer)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(_("nested too deep"), _text(text), 0) from None
    except ValueError as exc:       # the number hook's, or Python's own digit limit
        raise json.JSONDecodeError(str(exc), _text(text), 0) from None


def _text(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


# Python's parser explains itself in English (json/decoder.py and its C scanner); a
# person reads why in their own language. The key is how its message begins.
_WHY = (
    ("Expecting value", N_("a value is expected")),
    ("Expecting property name enclosed in double quotes",
     N_("a key in double quotes is expected")),
    ("Expecting ':' delimiter", N_("a colon (:) is expected")),
    ("Expecting ',' delimiter", N_("a comma (,) is expected")),
    ("Unterminated string", N_("a string is not closed")),
    ("Invalid control character", N_("a control character inside a string")),
    ("Invalid \\uXXXX escape", N_("a broken \\u escape")),
    ("Invalid \\escape", N_("an unknown backslash escape")),
    ("Extra data", N_("more text after the end")),
    ("Illegal trailing comma", N_("a comma before the closing bracket")),
)


def why(exc: json.JSONDecodeError) -> str:
    """Why the text is not JSON, in the reader's language (ours are already translated)."""
    for english, reason in _WHY:
        if exc.msg.startswith(english):
            return _(reason)
    return exc.msg


def not_utf8(exc: UnicodeDecodeError) -> str:
    """Why bytes are not UTF-8 text, in the reader's language (Python's reason is English)."""
    return _("byte {offset} is not UTF-8").format(offset=exc.start + 1)  # counted from 1
