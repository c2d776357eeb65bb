"""Strings from outside made safe for a terminal: the firmware's name for
mjtable_core/printable.py (the rules engine's command line uses it too)."""

from __future__ import annotations

from mjtable_core.printable import clean, printable, printable_lines

__all__ = ["clean", "printable", "printable_lines"]
