"""The interlock table the host declares to the I/O board at connect (protocol 3).

These hold on the board itself, whatever the host does or fails to do: a stalled or
crashed host cannot run a wall into an open hole. The firmware keeps the same rules
(firmware/lid.py, firmware/maintenance.py); here they become a second line, at the pin.
"""

from __future__ import annotations

from collections.abc import Mapping

from hal.protocol import CHANNEL_OF, encode_rule
from mjtable_core.signals import LID_UP, Kind, Signal


def interlock_table(signals: Mapping[str, Signal]) -> bytes:
    """Rules for the signals this table has: every motor off while the case is open;
    disc, ring, conveyors and plates only with the lid at its lower stop; the lid never
    drives up while a plate is off home."""
    fitted = {name for name in signals if name in CHANNEL_OF}
    motors = [name for name in sorted(fitted, key=CHANNEL_OF.__getitem__)
              if signals[name].kind in (Kind.MOTOR, Kind.LID_MOTOR)]
    rules = bytearray()
    if "case_open" in fitted:
        for motor in motors:
            rules += encode_rule(motor, "case_open", False)
    if "lid.lower" in fitted:
        for motor in motors:
            if motor in ("motor.disc", "motor.ring") or motor.endswith(
                    (".conveyor", ".plate")):
                rules += encode_rule(motor, "lid.lower", True)
    if "motor.lid" in fitted:
        for name in sorted(fitted, key=CHANNEL_OF.__getitem__):
            if name.endswith(".plate_home"):
                rules += encode_rule("motor.lid", name, True, output_value=LID_UP)
    return bytes(rules)
