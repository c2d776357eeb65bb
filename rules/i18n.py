"""The language of the rules engine's messages, without importing the firmware.

The rules engine stands alone, so it cannot use the firmware's catalogues directly.
Its messages are marked with `_()` here (extraction sees them like any other); the
firmware installs its translator with `install` when its language module loads, so
`mjtable deal` and the API speak the technician's language. Alone, the rules engine
speaks English.
"""

from __future__ import annotations

from collections.abc import Callable


def _identity(message: str) -> str:
    return message


_translate: Callable[[str], str] = _identity


def install(translate: Callable[[str], str]) -> None:
    """Translate the rules engine's messages with `translate` (msgid -> text)."""
    global _translate
    _translate = translate


def _(message: str) -> str:
    """`message` in the installed language (English when none is installed)."""
    return _translate(message)
