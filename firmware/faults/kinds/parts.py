"""Suspects more than one family names: a part a technician repairs and its cause.

A suspect only one family names is written in that family's module.
"""

from __future__ import annotations

from firmware.faults.kinds.evidence import Suspect
from firmware.i18n import N_

# The count sensor: a head sent for ghosts, a blind or double count, tiles short or extra.
COUNT: Suspect = ("side.{side}.count", N_("the count sensor of side {side} (dirty, misaligned "
                                          "or dead)"))
# The head's home sensor flickering: a head that lost its turn, a flaky sensor.
HEAD_SENSOR_GLITCH: Suspect = ("side.{side}.head_home", N_("the head home sensor of side "
                                                           "{side} flickers"))
