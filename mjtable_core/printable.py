"""Strings from outside (names, symptoms, params, files) made safe for a terminal.

A technician name like "\\x1b]0;x\\x07\\x1b[2J" would retitle or wipe the console it is
printed on. Every control character (C0, C1, DEL), every invisible format character
(bidirectional controls and marks, zero-width characters, tags) and the Unicode line
and paragraph separators are shown as visible escapes instead, before any human
output.
"""

from __future__ import annotations

import unicodedata
from typing import Any

# Cc: C0/C1 controls and DEL; Cs: lone surrogates; Cf: format characters (every bidi
# control and mark, U+061C included, zero-width and tag characters); Zl/Zp: U+2028/2029,
# which Python's splitlines and some viewers take for a new line.
_HIDDEN = frozenset({"Cc", "Cs", "Cf", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """`text` with control and bidi characters shown as escapes (\\x1b, \\u202e)."""
    if text.isprintable():
        return text
    return "".join(_escape(c) if unicodedata.category(c) in _HIDDEN else c for c in text)


def clean(value: Any) -> Any:
    """`printable` applied to every string (keys too) inside lists and dicts."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


def printable_lines(text: str) -> str:
    """`printable` line by line: the newlines of a multi-line text stay new lines."""
    return "\n".join(printable(line) for line in text.split("\n"))
