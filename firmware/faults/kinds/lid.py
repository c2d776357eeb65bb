"""The lid: it did not reach its upper or lower stop, or both its sensors lit at once."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Rule, Suspect
from firmware.faults.kinds.kind import ERROR, FaultKind
from firmware.i18n import N_

LID_LOWER_DARK: Suspect = ("lid.lower", N_("the lower lid sensor gone dark while the lid "
                                          "rested down"))
LID_MOTOR: Suspect = ("motor.lid", N_("the lift motor, its driver or its fuse"))
LID_BLOCKED: Suspect = ("lid", N_("something blocks the lid"))


def lid_sensor(name: str, on: bool) -> Suspect:
    """The upper or lower lid sensor, stuck active (`on`) or never lighting."""
    which = {"lid.upper": N_("the upper lid sensor stuck active") if on
             else N_("the upper lid sensor never lights"),
             "lid.lower": N_("the lower lid sensor stuck active") if on
             else N_("the lower lid sensor never lights")}
    return name, which[name]


# The lower stop gone out under a lid at rest: the sensor first.
LOWER_DARK_TEST = N_("run the lid self-test and watch the lower lid sensor's light in the "
                     "signal view: if it goes out while the lid stays down, replace the "
                     "sensor")


def _travel(left: str, toward: str) -> Rule:
    """The rule of a lid that left `left` for `toward` and did not arrive."""
    def rule(view: EvidenceView) -> Ranked:
        if view.evidence.get("dropped_while"):
            # The lower stop went dark while the lid rested on it, its motor off.
            return [LID_LOWER_DARK, LID_BLOCKED, LID_MOTOR], LOWER_DARK_TEST, "lid"
        if not view.evidence.get("moved"):
            return ([LID_MOTOR, lid_sensor(left, True)],
                    N_("run the lid self-test: if the lid moves, replace the sensor of the "
                       "stop it rested on; if it does not, check the fuse, the driver, then "
                       "the lift motor"), "lid")
        return ([LID_BLOCKED, lid_sensor(toward, False), LID_MOTOR],
                N_("look at the lid: if something blocks it, clear it; if it reached its "
                   "stop and the sensor's light stays off, replace that sensor; if it "
                   "still travels slowly in the lid self-test, the lift motor"), "lid")
    return rule


def conflict(view: EvidenceView) -> Ranked:
    changed = view.evidence.get("changed_last", "lid.upper")
    other = "lid.lower" if changed == "lid.upper" else "lid.upper"
    # The lid driven towards the sensor that just lit, far enough to be there: that one
    # is right, the other stayed lit. At rest, or too soon, the one that lit is the liar.
    travel = view.evidence.get("travel_s")
    arrived = travel is not None and travel >= view.min_travel * float(
        view.evidence.get("learned_s") or 0.0)
    first, second = (other, changed) if arrived else (changed, other)
    return ([lid_sensor(first, True), lid_sensor(second, True)],
            N_("with the lid at one stop, look at both lid sensors' lights in the signal "
               "view: the one lit at the wrong stop is stuck; replace it"), "lid")


KINDS = (
    FaultKind("lid.not_rising", "E10", ERROR, N_("the lid did not reach its upper stop"),
              (N_("something blocks the lid"), N_("lift motor or gear"), N_("upper lid sensor")),
              (N_("clear the lid area"), N_("run the lid motor test"), N_("check lid.upper")),
              short=N_("lid does not rise"), rule=_travel("lid.lower", "lid.upper"),
              symptoms=("set_stays_on_table",),
              sees="lid motor up, `lid.upper` not reached in k·T"),
    FaultKind("lid.not_lowering", "E11", ERROR, N_("the lid did not reach its lower stop"),
              (N_("tiles or an object under the lid"),
               N_("lift motor"),
               N_("lower lid sensor"),
               N_("cable")),
              (N_("remove what is under the lid"),
               N_("run the lid motor test"),
               N_("check lid.lower")),
              short=N_("lid does not lower"), rule=_travel("lid.upper", "lid.lower"),
              symptoms=("set_stays_on_table", "lid_not_lowering"),
              sees="lid motor down, `lid.lower` not reached in k·T"),
    FaultKind("lid.sensor_conflict", "E12", ERROR, N_("both lid sensors are active at once"),
              (N_("one lid sensor is stuck active"),),
              (N_("check which sensor stays active in the signal view"),
               N_("replace that sensor")),
              short=N_("lid sensors disagree"), rule=conflict,
              symptoms=("set_stays_on_table", "lid_not_lowering"),
              sees="`lid.upper` and `lid.lower` both active"),
)
