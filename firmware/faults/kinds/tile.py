"""A tile arrived face up at a head: a tile with a weak magnet, or the face-up sensor."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import FACE_UP_BELIEVED, WARNING, FaultKind
from firmware.i18n import N_

# The kind the face-up learner (firmware/diagnosis/recurrence.py) and wear name.
FACE_UP = "tile.face_up"

FACE_TILE: Suspect = ("tile", N_("a tile with a reversed or weak magnet"))
FACE_SENSOR: Suspect = ("side.{side}.face_up", N_("the face-up sensor of side {side} stuck "
                                                  "active"))


def face_up(view: EvidenceView) -> Ranked:
    if view.face_up_sensor_suspected():
        return [FACE_SENSOR], None, None
    return ([FACE_TILE, FACE_SENSOR],
            N_("if many tiles of side {side} come face up in one build, the face-up "
               "sensor is stuck: clean or replace it; if one tile comes back, replace that "
               "tile"), None)


KINDS = (
    FaultKind(FACE_UP, "W60", WARNING, N_("a tile arrived face up at a head"),
              (N_("a tile with a reversed or weak magnet"),),
              (N_("replace that tile, not the set"),),
              short=N_("tile face up"), rule=face_up, symptoms=("tile_face_up",),
              # Cleared: the face-up sensor of its side was seen to.
              on_clear=FACE_UP_BELIEVED,
              sees="`face_up` at a head; once per cycle from one slot: one defective tile"),
)
