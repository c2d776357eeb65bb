"""Strings from outside (names, symptoms, params) made safe for a terminal.

A technician name like "\\x1b]0;x\\x07\\x1b[2J" would retitle or wipe the console it is
printed on. Every control character (C0, C1, DEL) and every bidirectional override is
shown as a visible escape instead, before any human output.
"""

from __future__ import annotations

import unicodedata
from typing import Any

_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
         "\u2069", "\u200e", "\u200f"}


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with control and bidi characters shown as escapes (\\x1b, \\u202e)."""
    if text.isprintable():
        return text
    return "".join(_escape(c) if (unicodedata.category(c) in ("Cc", "Cs") or c in _BIDI)
                   else c for c in text)


def clean(value: Any) -> Any:
    """`printable` applied to every string (keys too) inside lists and dicts."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value
