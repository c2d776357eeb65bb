"""The language of core's messages (config errors), without importing the firmware.

Core is the bottom layer, so it cannot use the firmware's catalogues directly. Its
messages are marked with `_()` or `N_()` here (extraction sees them like any other);
the firmware installs its translator with `install` when its language module loads.
Alone, core speaks English.
"""

from __future__ import annotations

from collections.abc import Callable


def _identity(message: str) -> str:
    return message


_translate: Callable[[str], str] = _identity


def install(translate: Callable[[str], str]) -> None:
    """Translate core's messages with `translate` (msgid -> text)."""
    global _translate
    _translate = translate


def _(message: str) -> str:
    """`message` in the installed language (English when none is installed)."""
    return _translate(message)


def N_(message: str) -> str:
    """Mark a string for extraction; it is translated where it is shown."""
    return message
