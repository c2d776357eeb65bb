"""The wall lift plate of a side: its cam did not leave or return to home, or it was
found off home while it rested."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import ERROR, FaultKind
from firmware.i18n import N_

PLATE_MOTOR: Suspect = ("motor.side.{side}.plate", N_("the plate motor of side {side}, its "
                                                      "driver or its fuse"))
PLATE_SENSOR_ON: Suspect = ("side.{side}.plate_home", N_("the plate home switch of side "
                                                         "{side} stuck active"))
PLATE_SENSOR_OFF: Suspect = ("side.{side}.plate_home", N_("the plate home switch of side "
                                                          "{side} never closes"))
PLATE_SENSOR_GLITCH: Suspect = ("side.{side}.plate_home", N_("the plate home switch of side "
                                                             "{side} opens while the plate is "
                                                             "at home"))
PLATE_JAM: Suspect = ("side.{side}.plate", N_("debris in the plate rails of side {side}"))
PLATE_SENSOR_DARK: Suspect = ("side.{side}.plate_home", N_("the plate home switch of side "
                                                           "{side} gone open (dark) while the "
                                                           "plate rests"))
PLATE_PUSHED: Suspect = ("side.{side}.plate", N_("the plate of side {side} pushed off home by "
                                                 "hand or by a knock"))


def stuck(view: EvidenceView) -> Ranked:
    evidence = view.evidence
    if evidence.get("found_off_home") and not evidence.get("motor_on"):
        # Off home while it rested, its motor off and nothing commanded: a motor cannot
        # take a plate off home unpowered. The switch went open first; the plate
        # pushed by hand looks the same from here.
        return ([PLATE_SENSOR_DARK, PLATE_PUSHED],
                N_("look at the plate of side {side}: if it stands at home, replace its "
                   "home switch (it has gone open); if it is off home, run the plate "
                   "self-test"), "plate.{side}")
    if not evidence.get("moved"):
        return ([PLATE_MOTOR, PLATE_SENSOR_ON],
                N_("run the plate self-test of side {side}: if the plate rises and falls, "
                   "replace the plate home switch; if it does not, check the fuse, the "
                   "driver, then the motor"), "plate.{side}")
    return ([PLATE_JAM, PLATE_MOTOR, PLATE_SENSOR_OFF],
            N_("look at the plate rails of side {side}: clear any debris; if they are "
               "clear, run the plate self-test: a plate that moves slowly or not at all "
               "is the motor, one that comes round while the home switch stays open is "
               "the switch"), "plate.{side}")


KINDS = (
    FaultKind("plate.stuck", "E3N", ERROR, N_("the wall lift plate did not complete its turn"),
              (N_("debris in the plate rails"), N_("plate home switch"), N_("rocker arm")),
              (N_("clear the rails of side {side}"),
               N_("check plate_home"),
               N_("check the rocker arm")),
              short=N_("lift plate stuck"), rule=stuck,
              symptoms=("set_stays_on_table", "walls_not_rising"),
              sees="plate cam does not leave or return to `plate_home`"),
)
