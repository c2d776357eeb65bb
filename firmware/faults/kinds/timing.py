"""A mechanism slower than it used to be: wear, friction or a weak supply."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked
from firmware.faults.kinds.kind import WARNING, FaultKind
from firmware.i18n import N_


def drift(view: EvidenceView) -> Ranked:
    mechanism = str(view.evidence.get("mechanism", view.where))
    cam, _dot, n = mechanism.partition(".")
    if cam in ("head", "plate"):
        return [(f"motor.side.{n}.{cam}", N_("the motor wears or the mechanism is stiff")),
                ], None, None
    return [("motor.lid", N_("the motor wears or the mechanism is stiff"))], None, None


KINDS = (
    FaultKind("timing.drift", "W90", WARNING, N_("a mechanism is slower than it used to be"),
              (N_("wear"), N_("friction"), N_("weak supply")),
              (N_("service the mechanism"), N_("check the supply")),
              short=N_("mechanism slowing"), rule=drift,
              sees="a mechanism slower than T·(1 + margin) in 3 of its last 5 runs"),
)
