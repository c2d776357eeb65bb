"""The table's words as a person reads them: the firmware's name for
mjtable_core/words.py (the venue's screens say them too, without the firmware)."""

from __future__ import annotations

from mjtable_core.words import (
    ESTOP,
    LAMPS,
    METHODS,
    MOTORS,
    SIDE_MOTORS,
    STATES,
    TEST_MODE,
    cells,
    fault_at,
    lamp,
    method,
    mode,
    motor,
    phase,
    set_name,
    side,
    state,
)

__all__ = ["ESTOP", "LAMPS", "METHODS", "MOTORS", "SIDE_MOTORS", "STATES", "TEST_MODE",
           "cells", "fault_at", "lamp", "method", "mode", "motor", "phase", "set_name",
           "side", "state"]
