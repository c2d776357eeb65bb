"""The dice: the motor ran and they did not tumble, or not for long enough."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import ERROR, FaultKind
from firmware.i18n import N_

DICE_MOTOR: Suspect = ("motor.dice", N_("the dice motor or its fuse"))
DICE_SENSOR: Suspect = ("dice.spin", N_("the dice spin sensor stuck"))
DICE_JAM: Suspect = ("dice", N_("a jam under the dice plate"))


def stuck(view: EvidenceView) -> Ranked:
    test = N_("run the dice self-test and watch the dice: if they tumble, replace the "
              "spin sensor; if they do not, clear the dice plate, check the fuse, then "
              "the motor")
    if "spun_s" in view.evidence:       # they tumbled, then stopped: held
        return [DICE_JAM, DICE_SENSOR, DICE_MOTOR], test, "dice"
    return [DICE_MOTOR, DICE_SENSOR, DICE_JAM], test, "dice"


KINDS = (
    FaultKind("dice.stuck", "E70", ERROR, N_("the dice did not tumble"),
              (N_("jam under the dice plate"), N_("fuse"), N_("dice motor")),
              (N_("clear the dice plate"), N_("check the fuse"), N_("run the dice test")),
              short=N_("dice stuck"), rule=stuck, symptoms=("dice_not_spinning",),
              sees=("dice motor on, `dice.spin` shows no tumbling, or a spin shorter than the "
                    "minimum")),
)
