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

from mjtable_core.i18n import _

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
