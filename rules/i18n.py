"""The language of the rules engine's messages, without importing the firmware.

The rules engine stands alone, so it cannot use the firmware's catalogues directly.
Its messages are marked with `_()` from here (extraction sees them like any other):
core's hook (mjtable_core/i18n.py), which the firmware fills with its translator when its
language module loads, so `mjtable deal` and the API speak the technician's language.
Alone, the rules engine speaks English.
"""

from __future__ import annotations

from mjtable_core.i18n import N_, _, install

__all__ = ["N_", "_", "install"]
