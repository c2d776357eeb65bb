"""The stacking head of a side: its cam did not complete its turn."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import BUILD, ERROR, FaultKind
from firmware.faults.kinds.parts import COUNT, HEAD_SENSOR_GLITCH
from firmware.i18n import N_

HEAD_MOTOR: Suspect = ("motor.side.{side}.head", N_("the head motor of side {side}, its "
                                                    "driver or its fuse"))
HEAD_SENSOR_ON: Suspect = ("side.{side}.head_home", N_("the head home sensor of side {side} "
                                                       "stuck active"))
HEAD_SENSOR_OFF: Suspect = ("side.{side}.head_home", N_("the head home sensor of side {side} "
                                                        "never lights"))
HEAD_JAM: Suspect = ("side.{side}.head", N_("a tile jammed in the head of side {side}"))
HEAD_SENSOR_DARK: Suspect = ("side.{side}.head_home", N_("the head home sensor of side {side} "
                                                         "gone dark while the head rested"))


def jam(view: EvidenceView) -> Ranked:
    if view.evidence.get("home_dark_at_rest"):
        # Home went dark with the head's motor off, and never lit again: a cam at rest
        # does not leave home by itself. The sensor first, described as it failed.
        return ([HEAD_SENSOR_DARK, HEAD_JAM, HEAD_MOTOR],
                N_("turn the cam of side {side} by hand to home and watch the head home "
                   "sensor's light in the signal view: if it stays off, replace the "
                   "sensor; if it lights, look for a jammed tile"), "head.{side}")
    counted = int(view.evidence.get("counted") or 0)
    if counted and counted > view.tiles_per_side:
        # More tiles counted than the side holds: the count sensor counted ghosts, and
        # the head was sent for a tile that is not there.
        return ([COUNT, HEAD_MOTOR, HEAD_SENSOR_ON],
                N_("count the stacks of side {side}: if the wall is complete, clean the "
                   "count sensor of side {side}; if not, run the head self-test"),
                "head.{side}")
    if _home_taken_for_glitch(view):
        # The cam left home, came home after a whole turn's time and stands there lit,
        # yet its turn never ended: its home was taken for a glitch, after impossible
        # home edges of that sensor. A jammed cam never reaches home.
        return ([HEAD_SENSOR_GLITCH, HEAD_JAM, HEAD_MOTOR],
                N_("run the head self-test of side {side} and watch the head home "
                   "sensor's light in the signal view: if it flickers while the cam "
                   "stands, clean or replace it"), "head.{side}")
    if not view.evidence.get("moved"):
        # A tile jammed before the cam could leave home looks the same, less often.
        return ([HEAD_MOTOR, HEAD_SENSOR_ON, HEAD_JAM],
                N_("run the head self-test of side {side}: if the cam turns, replace the "
                   "head home sensor; if it does not, check the fuse, the driver, then the "
                   "motor"), "head.{side}")
    return ([HEAD_JAM, HEAD_MOTOR, HEAD_SENSOR_OFF],
            N_("open side {side} and look at the head: remove a jammed tile if there is "
               "one; if the head is clear, run its self-test: a cam that turns slowly or "
               "not at all is the motor, one that turns round while the home light stays "
               "off is the sensor"), "head.{side}")


def _home_taken_for_glitch(view: EvidenceView) -> bool:
    """The head home sensor's own edges show it flickering: it glitched, and the home
    it lit in time (and still reads) was not believed."""
    evidence = view.evidence
    seen = evidence.get("stop_seen_s")
    learned = float(evidence.get("learned_s") or 0.0)
    if not evidence.get("moved") or seen is None or float(seen) < view.min_travel * learned:
        return False
    side = view.at_side()       # read only when asked: a hand-made view may have no table
    return side is not None and side.glitches > 0


KINDS = (
    FaultKind("head.jam", "E2N", ERROR, N_("the stacking head did not complete its turn"),
              (N_("a tile jammed in the head"), N_("head gap misadjusted"), N_("stiff slider")),
              (N_("open side {side}"), N_("remove the jammed tile"), N_("adjust the head gap")),
              short=N_("head jam"), scope=BUILD, rule=jam,
              symptoms=("build_never_finishes",),
              sees="head motor on, `head_home` does not change within k·T"),
)
