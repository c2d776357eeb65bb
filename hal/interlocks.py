"""The interlock table the host declares to the I/O board at connect (protocol 3).

These hold on the board itself, whatever the host does or fails to do: a stalled or
crashed host cannot run a wall into an open hole. The firmware keeps the same rules
(firmware/machines/lid.py, firmware/machines/maintenance.py); here they become a
second line, at the pin.
"""

from __future__ import annotations

from collections.abc import Mapping

from hal.protocol import CHANNEL_OF, encode_rule
from mjtable_core.signals import LID_UP, Kind, Signal, Value

# One rule: `output` (at `output_value`; None: any running value) may run only while
# `input` reads `level`.
Rule = tuple[str, str, Value, Value]


def interlock_rules(signals: Mapping[str, Signal]) -> list[Rule]:
    """Rules for the signals this table has: every motor off while the case is open
    (by either contact of a two-contact switch);
    disc, ring, conveyors and plates only with the lid at its lower stop; the lid never
    drives up while a plate is off home."""
    fitted = {name for name in signals if name in CHANNEL_OF}
    motors = [name for name in sorted(fitted, key=CHANNEL_OF.__getitem__)
              if signals[name].kind in (Kind.MOTOR, Kind.LID_MOTOR)]
    rules: list[Rule] = []
    if "case_open" in fitted:
        rules += [(motor, "case_open", False, None) for motor in motors]
    if "case_open_nc" in fitted:
        # The switch's second contact: either one reporting open stops every motor.
        rules += [(motor, "case_open_nc", False, None) for motor in motors]
    if "lid.lower" in fitted:
        rules += [(motor, "lid.lower", True, None) for motor in motors
                  if motor in ("motor.disc", "motor.ring")
                  or motor.endswith((".conveyor", ".plate"))]
    if "motor.lid" in fitted:
        rules += [("motor.lid", name, True, LID_UP)
                  for name in sorted(fitted, key=CHANNEL_OF.__getitem__)
                  if name.endswith(".plate_home")]
    return rules


def interlock_table(signals: Mapping[str, Signal]) -> bytes:
    """The rules as the board takes them at connect (HELLO)."""
    return b"".join(encode_rule(output, input_name, level, output_value)
                    for output, input_name, level, output_value in interlock_rules(signals))
